package mqtt

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzVerify seed files")

// fuzzSeeds are the seed inputs: valid commands of every kind and the
// rejection shapes.
func fuzzSeeds() [][2]string {
	mk := func(key ed25519.PrivateKey, id string, p CommandPayload) string {
		if p.Table == "" {
			p.Table = "t1"
		}
		if p.TS.IsZero() {
			p.TS = testNow
		}
		if p.Nonce == "" {
			p.Nonce = "seed-nonce-" + p.Command + "-0000000"
		}
		b, err := SignCommand(key, id, p)
		if err != nil {
			panic(err)
		}
		return string(b)
	}
	args := func(s string) json.RawMessage { return json.RawMessage(s) }
	expired := noroll("late")
	expired.TS = testNow.Add(-time.Hour)
	expired.Nonce = "seed-nonce-expired-000"
	return [][2]string{
		{"noroll", mk(boxKey, "box-1", CommandPayload{Command: "noroll", Args: args(`{"cause":"not simultaneous"}`)})},
		{"shooter", mk(boxKey, "box-1", CommandPayload{Command: "shooter", Args: args(`{"action":"next","seat":4}`)})},
		{"dice", mk(boxKey, "box-1", CommandPayload{Command: "dice", Args: args(`{"action":"retire","set":"A","dice":["A3"]}`)})},
		{"game", mk(boxKey, "box-1", CommandPayload{Command: "game", Args: args(`{"action":"new_game"}`)})},
		{"noroll", mk(dealerKey, "deal-7", CommandPayload{Command: "noroll", Args: args(`{"cause":"x"}`)})},
		{"noroll", mk(otherKey, "box-1", CommandPayload{Command: "noroll", Args: args(`{"cause":"forged"}`)})},
		{"noroll", mk(boxKey, "box-1", expired)},
		{"noroll", `{"key_id":"box-1","payload":"e30=","sig":"` + base64.StdEncoding.EncodeToString(make([]byte, 64)) + `"}`},
		{"noroll", `{}`},
		{"noroll", `[]`},
		{"noroll", `{"key_id":1}`},
		{"cmd", "\x00\xff"},
	}
}

// FuzzVerify feeds arbitrary topic names and messages to the verifier. It
// must never panic; it must only accept a message whose signature verifies
// under the configured key for its key id, for this table and topic, and
// must refuse the same message a second time.
func FuzzVerify(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s[0], []byte(s[1]))
	}
	cfg := cmdConfig("tcp://127.0.0.1:1", f.TempDir())
	ns, err := OpenNonceStore(f.TempDir(), time.Time{})
	if err != nil {
		f.Fatal(err)
	}
	defer ns.Close()
	v, err := NewVerifier(cfg, ns)
	if err != nil {
		f.Fatal(err)
	}
	pubs := map[string]ed25519.PublicKey{}
	for _, k := range cfg.Commands.Keys {
		pubs[k.ID], _ = ParsePublicKey(k.PublicKey)
	}
	f.Fuzz(func(t *testing.T, name string, msg []byte) {
		c, err := v.Verify(name, msg, testNow)
		if err != nil {
			var rej *RejectError
			if !errors.As(err, &rej) || rej.Reason == "" {
				t.Fatalf("error is not a rejection with a reason: %v", err)
			}
			return
		}
		env, payload, perr := ParseEnvelope(msg)
		if perr != nil {
			t.Fatalf("accepted an envelope that does not parse: %v", perr)
		}
		sig, _ := base64.StdEncoding.DecodeString(env.Sig)
		if !ed25519.Verify(pubs[env.KeyID], append([]byte(signingContext), payload...), sig) {
			t.Fatal("accepted a message whose signature does not verify")
		}
		if c.Name != name || !isCommand(name) || c.KeyID != env.KeyID {
			t.Fatalf("accepted command %+v on topic %q", c, name)
		}
		if _, err := v.Verify(name, msg, testNow); err == nil {
			t.Fatal("accepted the same message twice")
		}
	})
}

// TestWriteFuzzSeeds writes the seed corpus files with -update-seeds.
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzVerify")
	if !*updateSeeds {
		if ents, err := os.ReadDir(dir); err != nil || len(ents) != len(fuzzSeeds()) {
			t.Fatalf("seed corpus %s: %d files, %v; run go test -run TestWriteFuzzSeeds -update-seeds ./mqtt", dir, len(ents), err)
		}
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range fuzzSeeds() {
		body := fmt.Sprintf("go test fuzz v1\nstring(%q)\n[]byte(%q)\n", s[0], s[1])
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
