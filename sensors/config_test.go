package sensors_test

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dicewatch/dicewatch/sensors"
)

func TestConfigValidate(t *testing.T) {
	if err := tableConfig().Validate(); err != nil {
		t.Fatalf("table config: %v", err)
	}
	tests := []struct {
		name string
		edit func(c *sensors.Config)
		want []string // "key: message" of every problem
	}{
		{"unknown role", func(c *sensors.Config) { c.Inputs[0].Role = "rial" },
			[]string{`sensors.inputs[0].role: "rial" is not one of rail, bowl, back_wall, noroll_button, dice_present`}},
		{"missing pin and name", func(c *sensors.Config) { c.Inputs[1].Pin = ""; c.Inputs[1].Name = "" },
			[]string{"sensors.inputs[1].name: required", "sensors.inputs[1].pin: required"}},
		{"duplicate pin", func(c *sensors.Config) { c.Outputs[0].Pin = "GPIO5" },
			[]string{`sensors.outputs[0].pin: pin "GPIO5" already used by sensors.inputs[0].pin`}},
		{"duplicate name", func(c *sensors.Config) { c.Inputs[2].Name = "rail_left" },
			[]string{`sensors.inputs[2].name: name "rail_left" already used by sensors.inputs[0].name`}},
		{"bad levels and pull", func(c *sensors.Config) {
			c.Inputs[0].Active = "up"
			c.Inputs[0].Pull = "high"
			c.Outputs[1].Active = ""
		},
			[]string{`sensors.inputs[0].active: "up" is not high or low`, `sensors.inputs[0].pull: "high" is not up, down or none`,
				"sensors.outputs[1].active: required (high or low)"}},
		{"times out of range", func(c *sensors.Config) { c.Inputs[3].DebounceMS = -1; c.Inputs[3].ChatterPerS = 20000 },
			[]string{"sensors.inputs[3].debounce_ms: -1 out of range 0..600000", "sensors.inputs[3].chatter_per_s: 20000 out of range 0..10000"}},
		{"stuck shorter than the filter", func(c *sensors.Config) { c.Inputs[0].StuckAfterMS = 10 },
			[]string{"sensors.inputs[0].stuck_after_ms: 10 must exceed denoise_ms+debounce_ms (22)"}},
		{"health level without pin", func(c *sensors.Config) { c.Inputs[0].HealthActive = "high" },
			[]string{"sensors.inputs[0].health_active: set without health_pin"}},
		{"bad drive", func(c *sensors.Config) { c.Outputs[2].Drive = "blink" },
			[]string{`sensors.outputs[2].drive: "blink" is not one of ready, no_roll, fault`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tableConfig()
			tc.edit(&c)
			err := c.Validate()
			var ve *sensors.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate: %v, want a *ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Key+": "+p.Msg)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestConfigYAML(t *testing.T) {
	doc := `
inputs:
  - name: rail_left
    role: rail
    pin: GPIO5
    active: low
    pull: up
    denoise_ms: 2
    debounce_ms: 20
    stuck_after_ms: 3000
    chatter_per_s: 20
outputs:
  - name: fault_lamp
    pin: gpiochip0:24
    drive: fault
    active: low
`
	var c sensors.Config
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	want := sensors.Input{Name: "rail_left", Role: sensors.RoleRail, Pin: "GPIO5", Active: "low", Pull: "up", DenoiseMS: 2, DebounceMS: 20, StuckAfterMS: 3000, ChatterPerS: 20}
	if !reflect.DeepEqual(c.Inputs[0], want) || c.Outputs[0].Pin != "gpiochip0:24" {
		t.Fatalf("decoded %+v", c)
	}

	bad := bytes.Replace([]byte(doc), []byte("debounce_ms"), []byte("debounse_ms"), 1)
	dec = yaml.NewDecoder(bytes.NewReader(bad))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err == nil || !strings.Contains(err.Error(), "debounse_ms") {
		t.Fatalf("misspelled key: %v", err)
	}
}

func TestMaxDelayMS(t *testing.T) {
	if got := tableConfig().MaxDelayMS(); got != 50 {
		t.Fatalf("MaxDelayMS = %d, want 50 (present's debounce)", got)
	}
	if got := (sensors.Config{}).MaxDelayMS(); got != 0 {
		t.Fatalf("empty MaxDelayMS = %d, want 0", got)
	}
}

// TestWiringDocExample keeps the sensors config example in README.md valid.
func TestWiringDocExample(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skipf("docs not beside the package: %v", err)
	}
	_, sec, _ := strings.Cut(string(b), "## Table sensors")
	_, rest, ok := strings.Cut(sec, "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no yaml block")
	}
	var doc struct {
		Sensors sensors.Config `yaml:"sensors"`
	}
	dec := yaml.NewDecoder(strings.NewReader(block))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if err := doc.Sensors.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sensors.Inputs) != 5 || len(doc.Sensors.Outputs) != 3 {
		t.Fatalf("decoded %d inputs and %d outputs, want 5 and 3", len(doc.Sensors.Inputs), len(doc.Sensors.Outputs))
	}
}
