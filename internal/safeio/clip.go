package safeio

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxEcho is the most bytes of a value an error message repeats: enough to
// recognise it, never a whole field of a hostile file.
const MaxEcho = 64

// Clip returns s when it is at most MaxEcho bytes, otherwise its first
// MaxEcho bytes (cut at a rune boundary) followed by "..." and its size,
// so that an error can name a value without repeating megabytes of it.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// Quote is strconv.Quote of Clip(s): a value in an error message, quoted
// and cut to a readable length.
func Quote(s string) string {
	if len(s) <= MaxEcho {
		return strconv.Quote(s)
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
