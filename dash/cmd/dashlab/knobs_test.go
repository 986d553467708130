package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var updateKnobDocs = flag.Bool("update-knob-docs", false, "rewrite docs/knobs.md from the knob table")

const knobDocsPath = "../../../docs/knobs.md"

// docs/knobs.md is `dashlab knobs --format markdown`: regenerate it with
// go generate ./dash/cmd/dashlab when a knob changes.
func TestKnobDocs(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"knobs", "--format", "markdown"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if *updateKnobDocs {
		if err := os.WriteFile(knobDocsPath, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(knobDocsPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, out.Bytes()) {
		t.Errorf("docs/knobs.md is not current: run go generate ./dash/cmd/dashlab")
	}
}

func TestKnobsCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"knobs", "hbf"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"hbf.t_read", "t_R", "3µs", "10ns .. 10s", "§VI-A", "hbf.reading", "paper, physical or serial"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("knobs hbf: no %q in\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "link.usable") {
		t.Error("knobs hbf lists link.usable")
	}
	out.Reset()
	if code := run([]string{"knobs", "--format", "json", "link"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), `"path": "link.usable"`) {
		t.Errorf("json: exit %d %s", code, out.String())
	}
	if code := run([]string{"knobs", "hfb"}, nil, &out, &errb); code != 2 {
		t.Errorf("unknown prefix: exit %d", code)
	}
}
