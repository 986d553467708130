package routing

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/dashlab/dashlab/internal/safeio"
)

// DecodeJSONL reads a JSON Lines routing trace from r; name labels errors.
// Each non-blank line is one object with exactly the keys request, token,
// layer and experts, and optionally weights, each once and spelt so:
//
//	{"request": 0, "token": 0, "layer": 0, "experts": [17, 3, 101, 64, 2, 90, 45, 8]}
//	{"request": 0, "token": 0, "layer": 1, "experts": [...], "weights": [0.31, 0.2, ...]}
//
// request, token and layer are non-negative integers, experts a list of
// distinct integer ids (the router's order: its top choice first), weights
// one finite number from 0 to MaxWeight per expert. Rows come in trace
// order (see Trace). Lines are at most MaxLineBytes, the input at most
// MaxTraceBytes; a byte-order mark is skipped. Anything else is an *Error
// naming the line.
func DecodeJSONL(r io.Reader, name string) (*Trace, error) {
	lr := safeio.NewLineReader(r, name, MaxLineBytes, MaxTraceBytes)
	br := bufio.NewReaderSize(lr, MaxLineBytes+16)
	b := newBuilder(name, false)
	var row jsonRow
	for line := 1; ; line++ {
		data, err := br.ReadSlice('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, readErr(name, line, err)
		}
		if text := bytes.TrimSpace(data); len(text) > 0 {
			if perr := row.parse(text); perr != nil {
				return nil, &Error{File: name, Line: line, Reason: perr.Error()}
			}
			var w []float64
			if row.hasWeights {
				w = row.weights
			}
			if err := b.add(line, row.request, row.token, row.layer, row.experts, w); err != nil {
				return nil, err
			}
		}
		if err != nil { // io.EOF
			break
		}
	}
	return b.done(false)
}

// readErr turns a read error at line into an *Error.
func readErr(name string, line int, err error) error {
	var ll *safeio.LineTooLongError
	var tl *safeio.TooLargeError
	switch {
	case errors.As(err, &ll):
		return &Error{File: name, Line: ll.Line, Reason: fmt.Sprintf("line longer than the limit of %d bytes", ll.Limit)}
	case errors.As(err, &tl):
		return &Error{File: name, Reason: fmt.Sprintf("larger than the limit of %d bytes", tl.Limit)}
	}
	return &Error{File: name, Line: line, Reason: err.Error()}
}

// jsonRow is one parsed row; its slices are reused line after line.
type jsonRow struct {
	request, token, layer int64
	experts               []int64
	weights               []float64
	hasWeights            bool
}

var rowKeys = [...]string{"request", "token", "layer", "experts", "weights"}

// parse reads one row object strictly: the keys above, each once, exact
// spelling, integer or list values as the key wants, nothing after the
// object.
func (row *jsonRow) parse(s []byte) error {
	p := scanner{s: s}
	row.experts, row.weights, row.hasWeights = row.experts[:0], row.weights[:0], false
	var seen [len(rowKeys)]bool
	p.space()
	if !p.eat('{') {
		return errors.New("not a JSON object")
	}
	p.space()
	if !p.eat('}') {
		for {
			p.space()
			key, err := p.key()
			if err != nil {
				return err
			}
			k := -1
			for i, name := range rowKeys {
				if key == name {
					k = i
				}
			}
			if k < 0 {
				return fmt.Errorf("unknown key %s (want request, token, layer, experts and optionally weights)", safeio.Quote(key))
			}
			if seen[k] {
				return fmt.Errorf("key %q appears twice", key)
			}
			seen[k] = true
			p.space()
			if !p.eat(':') {
				return fmt.Errorf("invalid JSON after key %q: want ':'", key)
			}
			p.space()
			switch k {
			case 0, 1, 2:
				v, err := p.integer(key)
				if err != nil {
					return err
				}
				*[...]*int64{&row.request, &row.token, &row.layer}[k] = v
			case 3:
				if err := p.list(key, func() error {
					v, err := p.integer("an expert id")
					if len(row.experts) >= MaxTopK {
						return fmt.Errorf("experts: more than %d", MaxTopK)
					}
					row.experts = append(row.experts, v)
					return err
				}); err != nil {
					return err
				}
			case 4:
				row.hasWeights = true
				if err := p.list(key, func() error {
					v, err := p.number("a weight")
					if len(row.weights) >= MaxTopK {
						return fmt.Errorf("weights: more than %d", MaxTopK)
					}
					row.weights = append(row.weights, v)
					return err
				}); err != nil {
					return err
				}
			}
			p.space()
			if p.eat('}') {
				break
			}
			if !p.eat(',') {
				return errors.New("invalid JSON: want ',' or '}' between keys")
			}
		}
	}
	p.space()
	if p.i != len(p.s) {
		return errors.New("more than one JSON value on the line")
	}
	for i, ok := range seen[:4] {
		if !ok {
			return fmt.Errorf("missing key %q", rowKeys[i])
		}
	}
	return nil
}

// scanner walks one line of JSON.
type scanner struct {
	s []byte
	i int
}

func (p *scanner) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// key reads a string of plain characters (a key with escapes cannot be
// one of the row's keys: it is returned as read, and refused as unknown).
func (p *scanner) key() (string, error) {
	if !p.eat('"') {
		return "", errors.New("invalid JSON: want a quoted key")
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != '"' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	if p.i >= len(p.s) {
		return "", errors.New("invalid JSON: unterminated key")
	}
	k := string(p.s[start:p.i])
	p.i++
	return k, nil
}

// token returns the bytes of a JSON number (or of whatever stands where one
// should).
func (p *scanner) token() []byte {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

// integer reads a JSON integer (no fraction or exponent).
func (p *scanner) integer(what string) (int64, error) {
	tok := p.token()
	if len(tok) == 0 {
		return 0, fmt.Errorf("%s: want an integer", what)
	}
	for i, c := range tok {
		if !(c >= '0' && c <= '9' || c == '-' && i == 0) {
			return 0, fmt.Errorf("%s = %s: want an integer", what, safeio.Quote(string(tok)))
		}
	}
	v, err := strconv.ParseInt(string(tok), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s = %s: out of range", what, safeio.Clip(string(tok)))
	}
	return v, nil
}

// number reads a JSON number.
func (p *scanner) number(what string) (float64, error) {
	tok := p.token()
	if len(tok) == 0 || !validNumber(tok) {
		return 0, fmt.Errorf("%s = %s: want a number", what, safeio.Quote(string(tok)))
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, fmt.Errorf("%s = %s: out of range", what, safeio.Clip(string(tok)))
	}
	return v, nil
}

// validNumber checks JSON's number grammar (strconv also takes "inf",
// "0x1p3" and "1_000").
func validNumber(s []byte) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// list reads a JSON array, calling item for each element; key prefixes
// the errors (none when empty).
func (p *scanner) list(key string, item func() error) error {
	if !p.eat('[') {
		return fmt.Errorf("%s: want a list", key)
	}
	p.space()
	if p.eat(']') {
		return nil
	}
	for {
		p.space()
		if err := item(); err != nil {
			if key == "" {
				return err
			}
			return fmt.Errorf("%s: %w", key, err)
		}
		p.space()
		if p.eat(']') {
			return nil
		}
		if !p.eat(',') {
			return fmt.Errorf("%s: invalid JSON list: want ',' or ']'", key)
		}
	}
}

// EncodeJSONL writes t as JSON Lines that DecodeJSONL reads back.
func EncodeJSONL(w io.Writer, t *Trace) error {
	bw := bufio.NewWriter(w)
	var buf []byte
	for r := range t.Requests() {
		for tok := range t.Tokens(r) {
			for l, layer := range t.layers {
				buf = append(buf[:0], `{"request":`...)
				buf = strconv.AppendInt(buf, t.reqIDs[r], 10)
				buf = append(buf, `,"token":`...)
				buf = strconv.AppendInt(buf, int64(tok), 10)
				buf = append(buf, `,"layer":`...)
				buf = strconv.AppendInt(buf, int64(layer), 10)
				buf = append(buf, `,"experts":[`...)
				for i, e := range t.Experts(r, tok, l) {
					if i > 0 {
						buf = append(buf, ',')
					}
					buf = strconv.AppendInt(buf, int64(e), 10)
				}
				buf = append(buf, ']')
				if ws := t.Weights(r, tok, l); ws != nil {
					buf = append(buf, `,"weights":[`...)
					for i, x := range ws {
						if i > 0 {
							buf = append(buf, ',')
						}
						buf = strconv.AppendFloat(buf, float64(x), 'g', -1, 32)
					}
					buf = append(buf, ']')
				}
				buf = append(buf, "}\n"...)
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
		}
	}
	return bw.Flush()
}
