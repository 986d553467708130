"""Tests of the Go translator: python3 -m unittest discover -s docker/gonb-papermill (the venv's)."""
import unittest

import nbformat
from papermill.parameterize import parameterize_notebook
from papermill.translators import papermill_translators

from gonb_papermill import GoTranslator, declared


class TranslateTest(unittest.TestCase):
    def test_values(self):
        t = GoTranslator.translate
        self.assertEqual(t(64), "64")
        self.assertEqual(t(0.8), "0.8")
        self.assertEqual(t(1e-6), "1e-06")
        self.assertEqual(t(float("inf")), "math.Inf(1)")
        self.assertEqual(t(True), "true")
        self.assertEqual(t(None), "nil")
        self.assertEqual(t("deepseek-v3"), '"deepseek-v3"')
        self.assertEqual(t('a "q" \\ \n é'), '"a \\"q\\" \\\\ \\n é"')
        self.assertEqual(t("go:10*unit.Microsecond"), "10*unit.Microsecond")
        self.assertEqual(t(["dash", "relay-only"]), '[]string{"dash", "relay-only"}')
        self.assertEqual(t([1, 4, 16]), "[]int{1, 4, 16}")
        self.assertEqual(t([1, 2.5]), "[]float64{1.0, 2.5}")
        self.assertEqual(t({"a": 1}), 'map[string]int{"a": 1}')
        with self.assertRaises(ValueError):
            t([1, "a"])
        with self.assertRaises(ValueError):
            t("go: ")

    def test_codify(self):
        src = GoTranslator.codify({"batch": 64, "model": "deepseek-v3", "tRead": "go:10*unit.Microsecond"})
        self.assertEqual(src, '// Parameters\nvar (\n\tbatch = 64\n\tmodel = "deepseek-v3"\n\ttRead = 10*unit.Microsecond\n)\n\n%%\n'
                              'fmt.Println("Parameters of this run (papermill): batch = 64; model = \\"deepseek-v3\\"; tRead = 10*unit.Microsecond.")\n')
        with self.assertRaises(ValueError):
            GoTranslator.codify({"not-go": 1})

    def test_registered(self):
        self.assertIs(papermill_translators.find_translator("gonb", "go"), GoTranslator)
        self.assertIs(papermill_translators.find_translator("other", "go"), GoTranslator)

    def test_entry_point(self):
        from importlib.metadata import entry_points
        eps = [e for e in entry_points(group="papermill.engine") if e.name == "gonb"]
        self.assertEqual(len(eps), 1, "the gonb engine entry point is not installed")
        from gonb_papermill.engine import GonbEngine
        self.assertIs(eps[0].load(), GonbEngine)


CELL = '''import "github.com/dashlab/dashlab/dash/unit"

var (
	// Catalogue model id.
	model = "qwen3-235b-a22b"
	// B, requests per batch.
	// Paper default: 4.
	batch = 4
	tRead unit.Duration = 3 * unit.Microsecond // trailing comment
	lo, hi = f(1, 2), 3
)
var single = []string{"a", "b"}
'''


class InspectTest(unittest.TestCase):
    def test_declared(self):
        got = declared(CELL)
        self.assertEqual([g[0] for g in got], ["model", "batch", "tRead", "lo", "hi", "single"])
        self.assertEqual(got[0], ("model", "", '"qwen3-235b-a22b"', "Catalogue model id."))
        self.assertEqual(got[1][3], "B, requests per batch. Paper default: 4.")
        self.assertEqual(got[2][1:3], ("unit.Duration", "3 * unit.Microsecond"))
        self.assertEqual(got[3][2], "f(1, 2)")
        self.assertEqual(got[4][2], "3")

    def test_parameterize(self):
        nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "gonb", "language": "go", "display_name": "Go (gonb)"}, "papermill": {}})
        nb.cells = [nbformat.v4.new_code_cell(CELL, metadata={"tags": ["parameters"]}),
                    nbformat.v4.new_code_cell("%%\nfmt.Println(batch)", metadata={"tags": []})]
        out = parameterize_notebook(nb, {"batch": 64})
        self.assertEqual([c.metadata.get("tags") for c in out.cells], [["parameters"], ["injected-parameters"], []])
        self.assertIn("\tbatch = 64\n", out.cells[1].source)
        # Run again: the injected cell is replaced, not added.
        again = parameterize_notebook(out, {"batch": 16})
        self.assertEqual(len(again.cells), 3)
        self.assertIn("\tbatch = 16\n", again.cells[1].source)


if __name__ == "__main__":
    unittest.main()
