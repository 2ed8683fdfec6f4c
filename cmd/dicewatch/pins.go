package main

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"
	"periph.io/x/host/v3/gpioioctl"

	"github.com/dicewatch/dicewatch/sensors"
)

// This file is the only place that touches GPIO hardware: it initialises
// periph's host drivers and resolves the pin names of the sensors config.

var (
	hostOnce sync.Once
	hostErr  error
)

// initHost loads periph's host drivers once. It succeeds on a machine
// without GPIO; pins are then simply not found.
func initHost() error {
	hostOnce.Do(func() {
		if _, err := host.Init(); err != nil {
			hostErr = fmt.Errorf("gpio: host init: %w", err)
		}
	})
	return hostErr
}

// openPin resolves a pin name from the config (a sensors.Resolver):
//   - a periph registry name or alias: GPIO17, or a line name the kernel
//     gives (on a Pi 5, "GPIO17" too);
//   - a character-device chip and line, for unnamed lines: gpiochip0:17
//     (chip by name, path or label; line by number or name).
//
// A pin that is not found is an error wrapping sensors.ErrMissingPin and
// naming the pin.
func openPin(name string) (gpio.PinIO, error) {
	if err := initHost(); err != nil {
		return nil, err
	}
	if p := gpioreg.ByName(name); p != nil {
		return p, nil
	}
	chip, line, ok := strings.Cut(name, ":")
	if !ok || chip == "" || line == "" {
		return nil, fmt.Errorf("gpio: pin %q: %w (no such name in the registry)", name, sensors.ErrMissingPin)
	}
	return chipLine(gpioioctl.Chips, chip, line, name)
}

// chipLine finds line (a number or a line name) on the chip named chip.
func chipLine(chips []*gpioioctl.GPIOChip, chip, line, name string) (gpio.PinIO, error) {
	var known []string
	for _, c := range chips {
		known = append(known, c.Name())
		if c.Name() != chip && c.Path() != chip && c.Label() != chip {
			continue
		}
		if n, err := strconv.Atoi(line); err == nil {
			if n < 0 || n >= c.LineCount() {
				return nil, fmt.Errorf("gpio: pin %q: %w (%s has lines 0..%d)", name, sensors.ErrMissingPin, c.Name(), c.LineCount()-1)
			}
			if l := c.ByNumber(n); l != nil {
				return l, nil
			}
		} else if l := c.ByName(line); l != nil {
			return l, nil
		}
		return nil, fmt.Errorf("gpio: pin %q: %w (no line %q on %s)", name, sensors.ErrMissingPin, line, c.Name())
	}
	if len(known) == 0 {
		return nil, fmt.Errorf("gpio: pin %q: %w (no GPIO character devices on this machine)", name, sensors.ErrMissingPin)
	}
	return nil, fmt.Errorf("gpio: pin %q: %w (no chip %q; chips: %s)", name, sensors.ErrMissingPin, chip, strings.Join(known, ", "))
}

// hasGPIO reports whether the machine has GPIO character devices.
func hasGPIO() bool {
	return initHost() == nil && len(gpioioctl.Chips) > 0
}

var _ sensors.Resolver = openPin
