package journaltest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Damage overwrites the first byte of marker, a string the test put in a
// record's body, in the journal's segment file holding it in dir: the
// record's checksum no longer matches, and a reader that reaches it gets
// journal.ErrCorrupt. In the newest segment, journal.Open refuses it
// with ErrCorrupt too (a damaged record is not a torn tail); put it in
// an earlier segment for a journal that opens and a reader that stops.
func Damage(dir, marker string) error {
	segs, err := filepath.Glob(filepath.Join(dir, "seg-*.log"))
	if err != nil {
		return err
	}
	for _, path := range segs {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		i := bytes.Index(b, []byte(marker))
		if i < 0 {
			continue
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.WriteAt([]byte{b[i] ^ 0x20}, int64(i))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return fmt.Errorf("journaltest: %q is in no segment of %s", marker, dir)
}
