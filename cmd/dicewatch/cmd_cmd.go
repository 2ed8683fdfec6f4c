package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/dicewatch/dicewatch/mqtt"
)

// cmdCmd signs an operator command with an Ed25519 key and publishes it to
// a table's cmd/<command> topic, then waits for the daemon's result:
//
//	dicewatch cmd --broker tcp://broker:1883 --table t1 --key box-1.key --key-id box-1 noroll --cause "not simultaneous"
//
// Exit status: 0 accepted (or sent, with --wait 0), 1 rejected or failed,
// 2 usage.
func cmdCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cmd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	broker := fs.String("broker", "tcp://127.0.0.1:1883", "broker URL")
	table := fs.String("table", "", "table id (required)")
	prefix := fs.String("prefix", "", "topic prefix (default dicewatch/<table>/)")
	passwordFile := fs.String("password-file", "", "file with one line username:password")
	ca := fs.String("tls-ca", "", "CA certificate (PEM) for an ssl:// broker")
	cert := fs.String("tls-cert", "", "client certificate (PEM)")
	key := fs.String("tls-key", "", "client certificate key (PEM)")
	keyFile := fs.String("key", "", "operator private key file from `dicewatch keygen` (required)")
	keyID := fs.String("key-id", "", "operator key id as listed in the daemon config (required)")
	argsJSON := fs.String("args", "", `command arguments as a JSON object, e.g. {"action":"next"}`)
	cause := fs.String("cause", "", `shorthand for noroll: --args {"cause":CAUSE}`)
	wait := fs.Duration("wait", 10*time.Second, "wait this long for the daemon's result (0: do not wait)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: dicewatch cmd --table T --key FILE --key-id ID [flags] noroll|shooter|dice|game")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// The command's own flags may follow its name, as the README writes
	// it (`... noroll --cause "..."`): the flag package stops at the first
	// name, so parse what follows it too.
	var command string
	if fs.NArg() > 0 {
		command = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return 2
		}
	}
	if command == "" || fs.NArg() != 0 || *table == "" || *keyFile == "" || *keyID == "" {
		fs.Usage()
		return 2
	}
	var raw json.RawMessage
	switch {
	case *cause != "" && *argsJSON != "":
		fmt.Fprintln(stderr, "dicewatch cmd: use --cause or --args, not both")
		return 2
	case *cause != "":
		b, _ := json.Marshal(map[string]string{"cause": *cause})
		raw = b
	case *argsJSON != "":
		raw = json.RawMessage(*argsJSON)
	default:
		raw = json.RawMessage(`{}`)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		fmt.Fprintln(stderr, "dicewatch cmd: --args must be a JSON object")
		return 2
	}
	priv, err := mqtt.LoadPrivateKey(*keyFile)
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch cmd: %v\n", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	conn := mqtt.Config{Broker: *broker, Table: *table, Prefix: *prefix, PasswordFile: *passwordFile,
		TLS: mqtt.TLS{CA: *ca, Cert: *cert, Key: *key}}
	res, err := mqtt.SendCommand(ctx, mqtt.SendOptions{Conn: conn, KeyID: *keyID, Key: priv, Command: command, Args: raw, Wait: *wait})
	if err != nil {
		fmt.Fprintf(stderr, "dicewatch cmd: %v\n", err)
		if errors.Is(err, mqtt.ErrNoResult) {
			fmt.Fprintln(stderr, "dicewatch cmd: the command was sent; check the table's event topic")
		}
		return 1
	}
	out, _ := json.Marshal(res)
	fmt.Fprintln(stdout, string(out))
	if *wait > 0 && res.Result != "accepted" {
		return 1
	}
	return 0
}
