package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the config parser: it must never
// panic, and every rejection must be a config error (ErrInvalid) that
// names at least one problem.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	ex, _ := filepath.Glob("../examples/*.yaml")
	for _, p := range append(files, ex...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("table: [\n"))
	f.Add([]byte("profile: {game: 3}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse("fuzz.yaml", b)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || !errors.Is(err, ErrInvalid) || len(ce.Problems) == 0 {
				t.Fatalf("rejection is not a config error with problems: %v", err)
			}
			return
		}
		if c.Table == "" || c.Hash() == "" {
			t.Fatalf("accepted a config without a table or hash: %+v", c)
		}
	})
}
