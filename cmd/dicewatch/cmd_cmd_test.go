package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// TestCmdFlagsAfterCommand: `dicewatch cmd` as the README and its own doc
// comment write it, the command's flags after its name (`... noroll
// --cause "..."`), signs and sends the command with that cause. Before,
// the flag package stopped at "noroll" and the command printed its usage
// and exited 2.
func TestCmdFlagsAfterCommand(t *testing.T) {
	broker := mqtttest.StartBroker(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "box-1.key")
	var out, errb bytes.Buffer
	if rc := cmdKeygen([]string{"--out", keyFile, "--id", "box-1", "--operator", "E1234", "--role", "boxperson"}, nil, &out, &errb); rc != 0 {
		t.Fatalf("keygen: %d %s", rc, errb.String())
	}
	sub := mqtttest.Subscribe(t, broker.URL(), mqtttest.SubscriberOptions{}, "dicewatch/t1/cmd/#")
	out.Reset()
	errb.Reset()
	rc := cmdCmd([]string{"--broker", broker.URL(), "--table", "t1", "--key", keyFile, "--key-id", "box-1",
		"noroll", "--cause", "not simultaneous", "--wait", "0"}, nil, &out, &errb)
	if rc != 0 {
		t.Fatalf("dicewatch cmd ... noroll --cause ...: exit %d\n%s", rc, errb.String())
	}
	msgs := sub.Wait(5*time.Second, func(m []mqtttest.Message) bool { return len(m) > 0 })
	if len(msgs) != 1 || msgs[0].Topic != "dicewatch/t1/cmd/noroll" {
		t.Fatalf("sent %v, want one message on dicewatch/t1/cmd/noroll", msgs)
	}
	var env struct {
		KeyID   string `json:"key_id"`
		Payload string `json:"payload"`
	}
	if err := json.Unmarshal(msgs[0].Payload, &env); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Command string            `json:"command"`
		Args    map[string]string `json:"args"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	if env.KeyID != "box-1" || p.Command != "noroll" || p.Args["cause"] != "not simultaneous" {
		t.Errorf("sent key %q command %q args %v, want box-1 noroll with the cause", env.KeyID, p.Command, p.Args)
	}
	// A stray word after the command is still a usage error.
	if rc := cmdCmd([]string{"--table", "t1", "--key", keyFile, "--key-id", "box-1", "noroll", "extra"}, nil, &out, &errb); rc != 2 {
		t.Errorf("noroll extra: exit %d, want 2", rc)
	}
}
