package serve

import (
	"fmt"
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

// MaxRequests bounds the requests of one trace or Poisson stream
// (1,048,576: a thousand times the paper's 1,152, and 32 MiB of requests).
const MaxRequests = 1 << 20

// MaxGeneratedTokens bounds the output tokens of one trace or Poisson
// stream (64 Mi): a run keeps every inter-token gap of its measured
// requests for the percentiles, 8 bytes each (512 MiB at the bound).
const MaxGeneratedTokens = 1 << 26

// MaxRate bounds a Poisson arrival rate (a million requests per second, a
// microsecond apart on average: arrivals are whole nanoseconds, and no GPU
// serves a request in a microsecond).
const MaxRate = 1e6

// Poisson returns n requests arriving as a Poisson process of rate
// requests per second (exponential gaps, the first after one gap), with
// lengths drawn from prompt and output. The same seed gives the same
// requests. The rate is at most MaxRate and high enough that every
// arrival falls within MaxArrivalSeconds (MinRate(n) and above, with the
// draw checked: an error names the request that would arrive later).
func Poisson(rate float64, n int, prompt, output Length, seed uint64) ([]Request, error) {
	if n < 1 || n > MaxRequests {
		return nil, fmt.Errorf("requests = %d: must be between 1 and %d", n, MaxRequests)
	}
	if !(rate >= MinRate(n)) || !(rate <= MaxRate) {
		return nil, fmt.Errorf("rate = %v requests/s: must be from %.3g (%d requests within %g s) to %g", rate, MinRate(n), n, float64(MaxArrivalSeconds), float64(MaxRate))
	}
	if err := prompt.validate("prompt"); err != nil {
		return nil, err
	}
	if err := output.validate("output"); err != nil {
		return nil, err
	}
	if g := float64(n) * float64(max(output.Min, output.Max)); g > MaxGeneratedTokens {
		return nil, fmt.Errorf("requests = %d of up to %d output tokens: up to %.4g tokens, more than the %d a run may generate", n, max(output.Min, output.Max), g, MaxGeneratedTokens)
	}
	arrivals := rand.New(rand.NewPCG(seed, 0x5eed_a11))
	lengths := rand.New(rand.NewPCG(seed, 0x1e_9e))
	reqs := make([]Request, n)
	t := 0.0
	for i := range reqs {
		t += arrivals.ExpFloat64() / rate
		if t > MaxArrivalSeconds {
			return nil, fmt.Errorf("rate = %v requests/s: request %d of %d would arrive at %.4g s, past the %g s limit: raise the rate or lower the requests", rate, i+1, n, t, float64(MaxArrivalSeconds))
		}
		reqs[i] = Request{ID: i, Arrival: unit.FromSeconds(t), Prompt: prompt.draw(lengths), Output: output.draw(lengths)}
	}
	return reqs, nil
}

// MinRate is the lowest Poisson rate for n requests: n requests per
// MaxArrivalSeconds, twice over, so that the last arrival is far inside
// the limit (its mean is half of it).
func MinRate(n int) float64 { return 2 * float64(max(n, 1)) / MaxArrivalSeconds }

// Backlogged returns n requests that all arrive at time zero: the server
// always has work waiting (the saturation workload).
func Backlogged(n int, prompt, output Length, seed uint64) ([]Request, error) {
	reqs, err := Poisson(1, n, prompt, output, seed)
	for i := range reqs {
		reqs[i].Arrival = 0
	}
	return reqs, err
}
