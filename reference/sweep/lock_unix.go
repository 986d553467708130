//go:build unix

package sweep

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockOutput takes the exclusive lock every writer of a sweep output holds
// for as long as it writes it (a sweep run, from its first read of the file
// to its last row or the Parquet conversion; a merge, from its first check
// to the rename): an advisory lock on a file beside the output,
// ".NAME.lock", created when missing and removed on release. It fails at
// once when another process holds it. A lock file removed by its holder
// between our open and our lock is detected (the path no longer names the
// file locked) and opened again.
func lockOutput(path string) (release func(), err error) {
	lp := lockPath(path)
	for range 16 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("%s: another run is writing it (a sweep or a merge; wait for it, or stop it, then run again)", path)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(lp)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return func() {
				os.Remove(lp) // while locked: a waiter that opened it retries
				f.Close()
			}, nil
		}
		f.Close() // the lock file was replaced or removed: lock the new one
	}
	return nil, fmt.Errorf("%s: could not lock %s", path, lp)
}
