package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCmdGenerate(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		files []string
	}{
		{"session", []string{"--out", filepath.Join(dir, "s"), "--throws", "1", "--seed", "3", "--width", "640", "--height", "360", "--kinds", "in_bowl"}, 0,
			[]string{"session.avi", "truth.jsonl", "frames.jsonl", "sensors.jsonl", "calibration.yaml", "session.json"}},
		{"stills", []string{"--out", filepath.Join(dir, "st"), "--stills", "2", "--seed", "9"}, 0, []string{"stills.jsonl", "still_000009.jpg", "still_000010.jpg"}},
		{"no out", []string{"--throws", "1"}, 2, nil},
		{"bad kind", []string{"--out", filepath.Join(dir, "x"), "--kinds", "valid,leaning"}, 2, nil},
		{"bad camera", []string{"--out", filepath.Join(dir, "y"), "--width", "10", "--height", "10"}, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := cmdGenerate(tc.args, strings.NewReader(""), &out, &errb); code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			for _, f := range tc.files {
				if _, err := os.Stat(filepath.Join(tc.args[1], f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}
