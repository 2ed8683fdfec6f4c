package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestReadWarnsWithoutFaceNet: when the built-in face net did not load,
// `dicewatch read` says so on stderr and still reads every image, and a
// file that is not an image gets its own error line.
func TestReadWarnsWithoutFaceNet(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	for _, broken := range []bool{false, true} {
		saved := faceNetError
		if broken {
			faceNetError = func() error { return errors.New("damaged net") }
		}
		var out, errOut bytes.Buffer
		code := cmdRead([]string{"--json", photo, "cmd_read_test.go"}, nil, &out, &errOut)
		faceNetError = saved
		if code != 1 {
			t.Fatalf("broken=%v: exit %d, want 1 (one file is no image)", broken, code)
		}
		warned := strings.Contains(errOut.String(), "face net did not load") && strings.Contains(errOut.String(), "damaged net")
		if warned != broken {
			t.Errorf("broken=%v: stderr %q", broken, errOut.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 2 {
			t.Fatalf("broken=%v: %d lines, want 2: %q", broken, len(lines), out.String())
		}
		var first readLine
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || len(first.Dice) == 0 {
			t.Errorf("broken=%v: first line %q (err %v), want dice", broken, lines[0], err)
		}
		var second readError
		if err := json.Unmarshal([]byte(lines[1]), &second); err != nil || second.Error == "" {
			t.Errorf("broken=%v: second line %q, want an error line", broken, lines[1])
		}
	}
}

// TestReadWarnsWithoutCockNet: when the built-in cocked net did not load,
// `dicewatch read` says so on stderr and still reads.
func TestReadWarnsWithoutCockNet(t *testing.T) {
	photo := "../../testdata/photos/byler_d6/images/IMG_20191208_111228.jpg"
	for _, broken := range []bool{false, true} {
		saved := cockNetError
		if broken {
			cockNetError = func() error { return errors.New("damaged cocked net") }
		}
		var out, errOut bytes.Buffer
		code := cmdRead([]string{"--json", photo}, nil, &out, &errOut)
		cockNetError = saved
		if code != 0 {
			t.Fatalf("broken=%v: exit %d, want 0", broken, code)
		}
		warned := strings.Contains(errOut.String(), "cocked net did not load") && strings.Contains(errOut.String(), "damaged cocked net")
		if warned != broken {
			t.Errorf("broken=%v: stderr %q", broken, errOut.String())
		}
	}
}
