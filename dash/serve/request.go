package serve

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/dashlab/dashlab/dash/unit"
)

// Request is one inference request: it arrives, is prefilled in chunks and
// generates Output tokens (the first one at the end of its prefill).
type Request struct {
	// ID is the request's index in arrival order.
	ID int
	// Arrival is when the request reaches the server.
	Arrival unit.Duration
	// Prompt and Output are its prompt and output lengths in tokens.
	Prompt, Output int
	// Prefilled marks a request whose prompt was prefilled elsewhere
	// (prefill/decode disaggregation, package cluster): its prompt's KV
	// and first token arrive with it, and it starts decoding when it is
	// admitted. Its TTFT here is zero; its TPOT counts from its arrival.
	Prefilled bool
}

// Length is a token-length distribution: Fixed when Max is 0 (or equal to
// Min), otherwise uniform over the integers [Min, Max].
type Length struct {
	// Min is the fixed length, or the smallest length of a uniform draw.
	Min int `json:"min"`
	// Max is the largest length of a uniform draw (0: fixed at Min).
	Max int `json:"max,omitempty"`
}

// Fixed is a length that never varies.
func Fixed(n int) Length { return Length{Min: n} }

// Uniform is a length drawn uniformly from [lo, hi].
func Uniform(lo, hi int) Length { return Length{Min: lo, Max: hi} }

func (l Length) validate(field string) error {
	switch {
	case l.Min < 1:
		return fmt.Errorf("%s = %d: must be at least 1 token", field, l.Min)
	case l.Max != 0 && l.Max < l.Min:
		return fmt.Errorf("%s: max %d below min %d", field, l.Max, l.Min)
	case max(l.Min, l.Max) > MaxTokens:
		return fmt.Errorf("%s = %d: above the limit of %d tokens", field, max(l.Min, l.Max), MaxTokens)
	}
	return nil
}

func (l Length) draw(r *rand.Rand) int {
	if l.Max <= l.Min {
		return l.Min
	}
	return l.Min + r.IntN(l.Max-l.Min+1)
}

// String is "4096" or "512..2048".
func (l Length) String() string {
	if l.Max <= l.Min {
		return fmt.Sprint(l.Min)
	}
	return fmt.Sprintf("%d..%d", l.Min, l.Max)
}

// MaxTokens bounds a request's prompt and output lengths (16M tokens).
const MaxTokens = 1 << 24

// MaxRequests bounds the requests of one trace.
const MaxRequests = 1 << 22

// Poisson returns n requests arriving as a Poisson process of rate
// requests per second (exponential gaps, the first after one gap), with
// lengths drawn from prompt and output. The same seed gives the same
// requests.
func Poisson(rate float64, n int, prompt, output Length, seed uint64) ([]Request, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("rate = %v requests/s: must be positive and finite", rate)
	}
	if n < 1 || n > MaxRequests {
		return nil, fmt.Errorf("requests = %d: must be between 1 and %d", n, MaxRequests)
	}
	if err := prompt.validate("prompt"); err != nil {
		return nil, err
	}
	if err := output.validate("output"); err != nil {
		return nil, err
	}
	arrivals := rand.New(rand.NewPCG(seed, 0x5eed_a11))
	lengths := rand.New(rand.NewPCG(seed, 0x1e_9e))
	reqs := make([]Request, n)
	t := 0.0
	for i := range reqs {
		t += arrivals.ExpFloat64() / rate
		reqs[i] = Request{ID: i, Arrival: unit.FromSeconds(t), Prompt: prompt.draw(lengths), Output: output.draw(lengths)}
	}
	return reqs, nil
}

// Backlogged returns n requests that all arrive at time zero: the server
// always has work waiting (the saturation workload).
func Backlogged(n int, prompt, output Length, seed uint64) ([]Request, error) {
	reqs, err := Poisson(1, n, prompt, output, seed)
	for i := range reqs {
		reqs[i].Arrival = 0
	}
	return reqs, err
}
