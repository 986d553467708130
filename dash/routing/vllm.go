package routing

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/dashlab/dashlab/internal/safeio"
)

// MaxVLLMLineBytes bounds one response of a vLLM capture (256 MiB: a
// 32K-token request of a 94-layer top-8 model is about 60 MB of JSON).
const MaxVLLMLineBytes = 256 << 20

// DecodeVLLM reads a vLLM routed-experts capture from r; name labels
// errors.
//
// The format is vLLM's "routed experts replay" (vLLM v0.21, the
// --enable-return-routed-experts server flag; pull request
// vllm-project/vllm#28284, documented at
// https://docs.vllm.ai/en/v0.21.0/training/routed_experts_replay/): each
// response of the OpenAI-compatible server (/v1/completions,
// /v1/chat/completions) carries
//
//   - prompt_routed_experts: a [prompt_len][num_moe_layers][top_k] array
//     of expert ids for the prompt tokens (at the response level, shared by
//     its choices), and
//   - choices[i].routed_experts: a [gen_len][num_moe_layers][top_k] array
//     for the tokens generated in choice i,
//
// with ids from 0 to num_experts-1. A capture file is the responses as a
// client saves them, one JSON object a line (json.dumps(resp) per
// request). Each choice becomes one trace request (in file order: request
// 0 is the first line's first choice): its prompt tokens, then its
// generated tokens. The layer numbers are MoE-layer ordinals (layer 0 is
// the model's first MoE layer), which Bind maps onto the model's MoE
// layers. Fields other than these two are ignored; a response without
// prompt_routed_experts contributes its choices' generated tokens only.
// vLLM records no routing for the last generated token (it is never fed
// back), so a capture of gen_len tokens covers an experiment with an
// output of gen_len + 1.
//
// Later vLLM versions moved the return path (the aux output connector,
// docs.vllm.ai/en/latest/training/routed_experts/); this adapter reads the
// v0.21 response arrays above.
func DecodeVLLM(r io.Reader, name string) (*Trace, error) {
	lr := safeio.NewLineReader(r, name, MaxVLLMLineBytes, MaxTraceBytes)
	br := bufio.NewReaderSize(lr, 1<<20)
	b := newBuilder(name, false)
	req := int64(0)
	var line []byte
	var prompt, gen nested
	for n := 1; ; n++ {
		var err error
		line, err = readLine(br, line[:0])
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, readErr(name, n, err)
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			var resp struct {
				Prompt  json.RawMessage `json:"prompt_routed_experts"`
				Choices []struct {
					Routed json.RawMessage `json:"routed_experts"`
				} `json:"choices"`
			}
			if jerr := json.Unmarshal(text, &resp); jerr != nil {
				return nil, &Error{File: name, Line: n, Reason: "not a vLLM response object: " + safeio.Clip(jerr.Error())}
			}
			if err := prompt.parse(resp.Prompt, "prompt_routed_experts"); err != nil {
				return nil, &Error{File: name, Line: n, Reason: err.Error()}
			}
			if len(resp.Choices) == 0 {
				return nil, &Error{File: name, Line: n, Reason: "no choices: a vLLM response holds at least one"}
			}
			for c, ch := range resp.Choices {
				what := fmt.Sprintf("choices[%d].routed_experts", c)
				if err := gen.parse(ch.Routed, what); err != nil {
					return nil, &Error{File: name, Line: n, Reason: err.Error()}
				}
				if prompt.tokens > 0 && gen.tokens > 0 && (prompt.layers != gen.layers || prompt.k != gen.k) {
					return nil, &Error{File: name, Line: n, Reason: fmt.Sprintf("%s is [%d][%d][%d] but prompt_routed_experts [%d][%d][%d]: layers and top-k differ",
						what, gen.tokens, gen.layers, gen.k, prompt.tokens, prompt.layers, prompt.k)}
				}
				if prompt.tokens+gen.tokens == 0 {
					return nil, &Error{File: name, Line: n, Reason: fmt.Sprintf("no routed experts in prompt_routed_experts or %s (was the server started with --enable-return-routed-experts?)", what)}
				}
				tok := int64(0)
				for _, part := range []*nested{&prompt, &gen} {
					for t := range part.tokens {
						for l := range part.layers {
							if err := b.add(n, req, tok, int64(l), part.row(t, l), nil); err != nil {
								return nil, err
							}
						}
						tok++
					}
				}
				req++
			}
		}
		if err != nil { // io.EOF
			break
		}
	}
	return b.done(true)
}

// readLine reads one line of any length up to the reader's limit.
func readLine(br *bufio.Reader, dst []byte) ([]byte, error) {
	for {
		frag, err := br.ReadSlice('\n')
		dst = append(dst, frag...)
		if err == nil || !errors.Is(err, bufio.ErrBufferFull) {
			return dst, err
		}
	}
}

// nested is a parsed [tokens][layers][k] integer array.
type nested struct {
	tokens, layers, k int
	ids               []int64
}

func (a *nested) row(t, l int) []int64 {
	i := (t*a.layers + l) * a.k
	return a.ids[i : i+a.k]
}

// parse reads a JSON [tokens][layers][k] array of integers (or null: no
// tokens), requiring every inner list to have the same length.
func (a *nested) parse(raw json.RawMessage, what string) error {
	a.tokens, a.layers, a.k, a.ids = 0, 0, 0, a.ids[:0]
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	p := scanner{s: raw}
	var dims [3]int // lengths seen at each depth
	var count [3]int
	var walk func(depth int) error
	walk = func(depth int) error {
		count[depth] = 0
		label := ""
		if depth == 0 {
			label = what
		}
		err := p.list(label, func() error {
			count[depth]++
			if depth == 2 {
				v, err := p.integer("an expert id")
				if err != nil {
					return err
				}
				if len(a.ids) >= MaxEntries {
					return fmt.Errorf("more than %d expert ids", MaxEntries)
				}
				a.ids = append(a.ids, v)
				return nil
			}
			return walk(depth + 1)
		})
		if err != nil {
			return err
		}
		if depth > 0 {
			switch {
			case dims[depth] == 0:
				dims[depth] = count[depth]
			case dims[depth] != count[depth]:
				return fmt.Errorf("ragged: a list of %d where the first had %d", count[depth], dims[depth])
			}
			if count[depth] == 0 {
				return errors.New("an empty inner list")
			}
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}
	p.space()
	if p.i != len(p.s) {
		return fmt.Errorf("%s: not a [tokens][layers][top_k] array", what)
	}
	a.tokens, a.layers, a.k = count[0], dims[1], dims[2]
	return nil
}
