package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// newFlags returns a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func newFlags(name, usageLine string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: dashlab %s\n", usageLine)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; -h prints usage and returns errHelp. A string flag
// given an empty (or blank) value is refused: it would otherwise stand for
// its default (--trace "" for a Poisson run, --host-dir "" for the shipped
// data) without a word. A flag whose help says "empty: ..." accepts it.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var empty []string
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		if v, isString := g.Get().(string); isString && strings.TrimSpace(v) == "" && !strings.Contains(f.Usage, "empty: ") {
			empty = append(empty, "--"+f.Name)
		}
	})
	if len(empty) > 0 {
		return fmt.Errorf("%w: %s: empty value (leave the flag out for its default)", errUsage, strings.Join(empty, ", "))
	}
	return nil
}

// oneLineErr is an error's text on one line (joined errors separated by
// "; ").
func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// noArgs refuses positional arguments, which a command without any would
// otherwise ignore (flag parsing stops at the first non-flag, so a stray
// word also hides every flag after it).
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q (flags after it were not read either)", errUsage, fs.Arg(0))
	}
	return nil
}

// parseNoArgs parses a command's flags, refuses positional arguments and
// checks its --format value: the start every listing command shares.
func parseNoArgs(fs *flag.FlagSet, args []string, format *string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	return checkFormat(*format)
}

// setFlags returns the names of the flags given on the command line, in
// the order the flag set lists them.
func setFlags(fs *flag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *flag.Flag) { names = append(names, "--"+f.Name) })
	return names
}

// maxWorkers bounds --workers: simulations are CPU-bound, so more workers
// than this help no machine dashlab runs on, and each costs memory.
const maxWorkers = 1024

// checkWorkers validates a --workers value (0: one per CPU).
func checkWorkers(n int) error {
	if n < 0 || n > maxWorkers {
		return fmt.Errorf("%w: --workers = %d: want 0 (one per CPU) to %d", errUsage, n, maxWorkers)
	}
	return nil
}

// errHelp is returned after -h printed the usage: exit 0.
var errHelp = errors.New("help")

// checkFormat accepts the output formats every command offers: table (for
// people), json (the whole result) and csv (a table of it).
func checkFormat(f string) error {
	if f != "table" && f != "json" && f != "csv" {
		return fmt.Errorf("%w: --format %q: want table, json or csv", errUsage, f)
	}
	return nil
}

// writeCSV writes a header and rows as RFC 4180 CSV.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// csvFloat writes a float for CSV: shortest exact form.
func csvFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// SchemaVersion is the version of the JSON every command writes with --format json:
// {"schema_version": N, "result": ...}, snake_case keys with the unit in the name
// where it is not obvious (ttft_ns, bytes, decode_throughput_tok_s). It changes when
// a key is renamed or removed. Version 2: gpu validate's statistics and env in
// snake_case (points, median_err_pct, copy_bw_gbps_read_plus_write), no second
// schema_version inside the results of cost, endurance, energy and offload, and
// lookahead's elapsed_s only with --perf.
const SchemaVersion = 2

// writeJSON writes v as indented JSON in the versioned envelope.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		SchemaVersion int `json:"schema_version"`
		Result        any `json:"result"`
	}{SchemaVersion, v})
}

// table prints aligned columns.
type table struct {
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	widths := map[int]int{}
	for _, r := range t.rows {
		for i, c := range r {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-len([]rune(c))))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// settingsFlag collects --set PATH=VALUE (repeatable): knobs of the knob
// table (`dashlab knobs`), each read and checked as the flag is parsed. A
// blank value is left to parse, which refuses it naming the flag.
type settingsFlag struct {
	list  []dash.Setting
	blank bool
}

func (s *settingsFlag) String() string {
	parts := make([]string, len(s.list))
	for i, x := range s.list {
		parts[i] = x.String()
	}
	return strings.Join(parts, " ")
}

// Get is the flag's text ("" when a value was blank), for parse.
func (s *settingsFlag) Get() any {
	if s.blank {
		return ""
	}
	return s.String()
}

func (s *settingsFlag) Set(text string) error {
	if strings.TrimSpace(text) == "" {
		s.blank = true
		return nil
	}
	st, err := dash.ParseSetting(text)
	if err != nil {
		return err
	}
	s.list = append(s.list, st)
	return nil
}

// addSetFlag adds --set to a command that builds experiments.
func addSetFlag(fs *flag.FlagSet) *settingsFlag {
	s := &settingsFlag{}
	fs.Var(s, "set", "set a knob, PATH=VALUE with its unit (repeatable): --set hbf.t_read=10us --set link.usable=0.8TB/s; 'dashlab knobs' lists them")
	return s
}
