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
func Clip(s string) string { return ClipTo(s, MaxEcho) }

// ClipTo is Clip with a limit of n bytes.
func ClipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut(s, n)], len(s))
}

// Quote is strconv.Quote of Clip(s): a value in an error message, quoted
// and cut to a readable length.
func Quote(s string) string {
	if len(s) <= MaxEcho {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut(s, MaxEcho)]), len(s))
}

// cut is the largest rune boundary of s at or below n.
func cut(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
