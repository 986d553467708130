package serve

import (
	"errors"
	"fmt"
)

// Mode is how an iteration's decode tokens and prefill chunks share passes.
type Mode uint8

// Modes.
const (
	// Mixed co-schedules decode tokens and prefill chunks in one pass.
	Mixed Mode = iota
	// Serial runs a decode pass, then a prefill pass, per iteration.
	Serial
)

// String is "mixed" or "serial".
func (m Mode) String() string {
	switch m {
	case Mixed:
		return "mixed"
	case Serial:
		return "serial"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// MarshalText writes the mode's name.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode's name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	*m = v
	return err
}

// ParseMode reads "mixed" or "serial".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "mixed":
		return Mixed, nil
	case "serial":
		return Serial, nil
	}
	return 0, fmt.Errorf("mode %q: want mixed or serial", s)
}

// Scheduler is the iteration-level scheduler. At each iteration boundary
// it reserves one decode token per active request whose prompt is done,
// then gives at most one prefill chunk to each request still in prefill
// (the active ones first, then the waiting ones in arrival order, which are
// admitted while fewer than MaxBatch requests are active and their KV fits)
// until the token budget is spent; the last chunk may be cut short by the
// budget.
type Scheduler struct {
	// MaxBatch is B_max, the most requests active at once (1 to 65,536).
	MaxBatch int `json:"max_batch"`
	// TokenBudget is the most tokens one iteration processes (above
	// MaxBatch, at most 16M).
	TokenBudget int `json:"token_budget"`
	// Chunk is the prefill chunk length in tokens (1 to TokenBudget).
	Chunk int `json:"chunk_tokens"`
	// Mode is Mixed or Serial.
	Mode Mode `json:"mode"`
}

// PaperScheduler is §VI-E's scheduler: B_max 32, an 8,192-token budget,
// 512-token chunks, Mixed.
func PaperScheduler() Scheduler {
	return Scheduler{MaxBatch: 32, TokenBudget: 8192, Chunk: 512, Mode: Mixed}
}

// Validate reports every bad field.
func (s Scheduler) Validate() error {
	var errs []error
	if s.MaxBatch < 1 || s.MaxBatch > 1<<16 {
		errs = append(errs, fmt.Errorf("max_batch = %d: must be between 1 and 65536", s.MaxBatch))
	}
	if s.TokenBudget <= s.MaxBatch || s.TokenBudget > 1<<24 {
		errs = append(errs, fmt.Errorf("token_budget = %d: must exceed max_batch (%d), so that prefill always progresses, and be at most 16M", s.TokenBudget, s.MaxBatch))
	}
	if s.Chunk < 1 || s.Chunk > 1<<24 {
		errs = append(errs, fmt.Errorf("chunk_tokens = %d: must be between 1 and 16M", s.Chunk))
	} else if s.Chunk > s.TokenBudget && s.TokenBudget > 0 {
		errs = append(errs, fmt.Errorf("chunk_tokens = %d: above token_budget (%d), so no chunk could be that long", s.Chunk, s.TokenBudget))
	}
	if s.Mode != Mixed && s.Mode != Serial {
		errs = append(errs, fmt.Errorf("mode = %v: want mixed or serial", s.Mode))
	}
	return errors.Join(errs...)
}
