package mqtt

import (
	"crypto/ed25519"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConfigProblems(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("table-t1:hunter2\n"), 0o600)
	badpw := filepath.Join(dir, "badpw")
	os.WriteFile(badpw, []byte("hunter2\n"), 0o600)
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, []byte("not a certificate"), 0o644)
	good := func() Config {
		c := Config{Broker: "tcp://127.0.0.1:1883", Table: "t1", StateDir: dir, PasswordFile: pw}
		c.SetDefaults()
		return c
	}
	cases := []struct {
		name   string
		mutate func(*Config)
		want   []string // exact problems; none means valid
	}{
		{"valid", func(*Config) {}, nil},
		{"missing broker and state", func(c *Config) { c.Broker, c.StateDir = "", "" }, []string{"mqtt.broker: is required", "mqtt.state_dir: is required"}},
		{"bad scheme", func(c *Config) { c.Broker = "http://x:80" }, []string{`mqtt.broker: "http://x:80" must start with tcp://, mqtt://, ssl://, tls:// or mqtts://`}},
		{"no port", func(c *Config) { c.Broker = "tcp://broker" }, []string{"mqtt.broker: must be scheme://host:port"}},
		{"credentials in url", func(c *Config) { c.Broker = "tcp://u:hunter2@broker:1883" }, []string{"mqtt.broker: must not hold credentials: put them in mqtt.password_file"}},
		{"qos 0", func(c *Config) { c.QoS = 0 }, []string{"mqtt.qos: 0 must be 1 or 2 (0 can lose messages)"}},
		{"prefix", func(c *Config) { c.Prefix = "a/+/b" }, []string{`mqtt.prefix: "a/+/b" must end with /`}},
		{"prefix wildcard", func(c *Config) { c.Prefix = "a/#/" }, []string{`mqtt.prefix: "a/#/" must not contain MQTT wildcards or start with $`}},
		{"password file format", func(c *Config) { c.PasswordFile = badpw }, []string{"mqtt.password_file: mqtt: password file " + badpw + ": first line must be username:password"}},
		{"cert without key", func(c *Config) { c.Broker = "ssl://b:8883"; c.TLS.Cert = "x.pem" }, []string{"mqtt.tls.cert: tls.cert and tls.key must be set together"}},
		{"tls files on tcp", func(c *Config) { c.TLS.CA = ca }, []string{`mqtt.tls.ca: TLS files are set but mqtt.broker "tcp://127.0.0.1:1883" is not ssl://, tls:// or mqtts://`, "mqtt.tls.ca: " + ca + " holds no PEM certificate"}},
		{"window", func(c *Config) { c.Commands.WindowMS = 5 }, []string{"mqtt.commands.window_ms: 5 is out of range 1000..600000"}},
		{"keys", func(c *Config) {
			c.Commands.Keys = []Key{
				{ID: "a", Operator: "E1", Role: "boxperson", PublicKey: EncodePublicKey(boxKey.Public().(ed25519.PublicKey))},
				{ID: "a", Operator: "", Role: "", PublicKey: "zz"},
			}
		}, []string{`mqtt.commands.keys[1].id: "a" is listed twice`, "mqtt.commands.keys[1].operator: is required", "mqtt.commands.keys[1].role: is required", "mqtt.commands.keys[1].public_key: mqtt: public key is not base64"}},
		{"unknown role command", func(c *Config) { c.Commands.Roles["shutdown"] = []string{"x"} }, []string{"mqtt.commands.roles.shutdown: unknown command (want one of noroll, shooter, dice, game)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := good()
			c.mutate(&cfg)
			var got []string
			for _, p := range cfg.Problems() {
				got = append(got, p.Error())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if err := cfg.Validate(); (err == nil) != (len(c.want) == 0) {
				t.Errorf("Validate = %v", err)
			} else if err != nil {
				var fe *FieldError
				if !errors.As(err, &fe) {
					t.Errorf("Validate error is not a *FieldError: %T", err)
				}
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{Table: "t9"}
	c.SetDefaults()
	if c.Prefix != "dicewatch/t9/" || c.ClientID != "dicewatch-t9" || c.QoS != 1 || c.Commands.WindowMS != 30000 {
		t.Errorf("defaults: %+v", c)
	}
	if got := c.Commands.Roles["noroll"]; len(got) != 1 || got[0] != "boxperson" {
		t.Errorf("noroll roles %v", got)
	}
}

func TestConfigLogValueHasNoSecrets(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	os.WriteFile(pw, []byte("table-t1:hunter2\n"), 0o600)
	c := Config{Broker: "tcp://127.0.0.1:1883", Table: "t1", StateDir: dir, PasswordFile: pw}
	c.SetDefaults()
	var buf strings.Builder
	slog.New(slog.NewTextHandler(&buf, nil)).Info("start", "mqtt", c)
	if strings.Contains(buf.String(), "hunter2") || strings.Contains(buf.String(), "table-t1:") {
		t.Fatalf("log leaks credentials: %s", buf.String())
	}
	if !strings.Contains(buf.String(), "credentials=true") {
		t.Errorf("log: %s", buf.String())
	}
}
