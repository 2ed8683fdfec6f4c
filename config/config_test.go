package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden .err files from the current output")

// TestInvalidConfigs checks every rejection against its exact error text,
// kept beside each testdata/invalid-*.yaml as invalid-*.err.
func TestInvalidConfigs(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid configs found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, err := Load(f)
			if err == nil {
				t.Fatal("accepted an invalid config")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not match ErrInvalid: %v", err)
			}
			golden := strings.TrimSuffix(f, ".yaml") + ".err"
			got := err.Error() + "\n"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, rerr := os.ReadFile(golden)
			if rerr != nil {
				t.Fatalf("missing golden %s (run go test ./config -update): %v", golden, rerr)
			}
			if got != string(want) {
				t.Errorf("error text changed\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func TestMisspelledKeyIsNamed(t *testing.T) {
	_, err := Load("testdata/invalid-misspelled-key.yaml")
	if err == nil || !strings.Contains(err.Error(), "line 4: camera.fsp: unknown key") {
		t.Fatalf("want the misspelled key named with its line, got %v", err)
	}
}

// withEtcFiles copies a config whose files live in /etc/dicewatch/ into a
// temporary folder holding real stand-ins for them (a CA, a client
// certificate and key, a password file), so an example can be checked
// completely on a machine that is not the table's.
func withEtcFiles(t *testing.T, path string) string {
	t.Helper()
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	files := map[string][]byte{
		"ca.pem": cert, "client.pem": cert,
		"client-key.pem": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}),
		"mqtt-password":  []byte("dicewatch:secret\n"),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(out, []byte(strings.ReplaceAll(string(b), "/etc/dicewatch/", dir+"/")), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestValidConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid-*.yaml")
	ex, _ := filepath.Glob("../examples/*.yaml")
	for _, f := range append(files, ex...) {
		f := f
		if strings.HasSuffix(f, "craps-table.yaml") {
			f = withEtcFiles(t, f)
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			if c.Hash() == "" {
				t.Error("empty config hash")
			}
			if c.Vision.SettleMS > 300 {
				t.Errorf("settle window %d ms over the 300 ms limit", c.Vision.SettleMS)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	c, err := Load("testdata/valid-minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.MQTT.Prefix != "dicewatch/craps-01/" {
		t.Errorf("prefix %q, want dicewatch/craps-01/", c.MQTT.Prefix)
	}
	if c.Vision.SettleMS != 300 || c.Camera.FPS != 30 || c.MQTT.QoS != 1 {
		t.Errorf("defaults not applied: %+v", c)
	}
}

// TestPipSpreadLoaded: vision.pip_spread is read as given (the dice's pip
// spread, handed to the still-photo reader), and left out it is 0 (the
// calibration's die.pip_spread, or none).
func TestPipSpreadLoaded(t *testing.T) {
	for f, want := range map[string]float64{"testdata/valid-pip-spread.yaml": 0.27, "testdata/valid-minimal.yaml": 0} {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if c.Vision.PipSpread != want {
			t.Errorf("%s: pip spread %g, want %g", f, c.Vision.PipSpread, want)
		}
	}
}
