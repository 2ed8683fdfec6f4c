package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/sensors"
)

func TestOpenPinMissing(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"NO_SUCH_PIN_42", `gpio: pin "NO_SUCH_PIN_42": pin not found`},
		{"gpiochip97:3", `gpio: pin "gpiochip97:3": pin not found`},
		{"gpiochip97:", `gpio: pin "gpiochip97:": pin not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := openPin(tc.name)
			if p != nil || !errors.Is(err, sensors.ErrMissingPin) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("openPin(%q) = %v, %v; want nil and an error starting %q", tc.name, p, err, tc.want)
			}
		})
	}
}

// TestRealBoardSmoke opens one real input through periph and reads it
// for a moment. It runs only on a machine with GPIO character devices and
// DICEWATCH_SMOKE_PIN naming a free input (e.g. GPIO17 or gpiochip0:17),
// and skips otherwise, saying why.
func TestRealBoardSmoke(t *testing.T) {
	if !hasGPIO() {
		t.Skip("no GPIO character device (/dev/gpiochip*) on this machine: real-board smoke test skipped")
	}
	name := os.Getenv("DICEWATCH_SMOKE_PIN")
	if name == "" {
		t.Skip("GPIO found but DICEWATCH_SMOKE_PIN is not set (name a free input, e.g. GPIO17): real-board smoke test skipped")
	}
	cfg := sensors.Config{Inputs: []sensors.Input{{Name: "smoke", Role: sensors.RoleDicePresent, Pin: name,
		Active: "high", Pull: "down", DebounceMS: 5}}}
	s, err := sensors.Open(cfg, openPin, sensors.MonotonicClock{Origin: time.Now()})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	s.PollTimeout = 50 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	out := make(chan sensors.Event, 64)
	if err := s.Run(ctx, out, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	close(out)
	for e := range out {
		t.Logf("event %+v", e)
	}
}
