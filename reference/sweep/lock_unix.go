//go:build unix

package sweep

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f, so that two runs never
// append to one output; it fails at once when another run holds it.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%s: another run is writing it (wait for it, or stop it, then run again)", f.Name())
	}
	return err
}
