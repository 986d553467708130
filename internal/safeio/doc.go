// Package safeio reads and writes files the way every dashlab tool must:
// input with a size limit, so that a huge file or a device such as
// /dev/zero is refused instead of filling memory, and output atomically, so
// that a failed write (a full disk, a crash, Ctrl-C) leaves the previous
// file intact instead of a truncated one.
//
// An atomic write goes to a temporary file in the destination's own
// directory (so that the rename cannot cross file systems), is synced, and
// is renamed over the destination; on any error the temporary file is
// removed and the destination is untouched.
package safeio
