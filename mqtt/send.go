package mqtt

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
)

// GenerateKey makes an operator key pair.
func GenerateKey() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("mqtt: generate key: %w", err)
	}
	return pub, priv, nil
}

// EncodePublicKey is the config form of a public key (base64).
func EncodePublicKey(pub ed25519.PublicKey) string { return base64.StdEncoding.EncodeToString(pub) }

// WritePrivateKey writes the key's seed, base64, to a new file with mode
// 0600. It refuses to overwrite an existing file.
func WritePrivateKey(path string, priv ed25519.PrivateKey) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("mqtt: private key: %w", err)
	}
	if _, err := fmt.Fprintln(f, base64.StdEncoding.EncodeToString(priv.Seed())); err != nil {
		f.Close()
		return fmt.Errorf("mqtt: private key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("mqtt: private key: %w", err)
	}
	return f.Close()
}

// LoadPrivateKey reads a key written by WritePrivateKey. Errors never
// include the file's content.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mqtt: private key: %w", err)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("mqtt: private key %s: not a base64 Ed25519 seed", path)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// SendOptions say where and what to send.
type SendOptions struct {
	// Conn is the broker connection; Table, Prefix, Broker, PasswordFile
	// and TLS are used. ClientID defaults to "dicewatch-cmd-<random>".
	Conn    Config
	KeyID   string
	Key     ed25519.PrivateKey
	Command string          // noroll, shooter, dice, game
	Args    json.RawMessage // JSON object
	// Now is the signing time (default time.Now).
	Now time.Time
	// Wait for the daemon's result event this long (0: do not wait).
	Wait time.Duration
}

// ErrNoResult is returned by SendCommand when no result event arrived in
// time.
var ErrNoResult = errors.New("mqtt: no command result from the daemon")

// SendCommand signs a command, publishes it on <prefix>cmd/<command> at
// QoS 1 and, if o.Wait > 0, waits for the daemon's result event.
func SendCommand(ctx context.Context, o SendOptions) (CommandResult, error) {
	c := o.Conn
	if c.ClientID == "" {
		c.ClientID = "dicewatch-cmd-" + randomID(4)
	}
	if c.Prefix == "" {
		c.Prefix = "dicewatch/" + c.Table + "/"
	}
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	nonce := NewNonce()
	msg, err := SignCommand(o.Key, o.KeyID, CommandPayload{Table: c.Table, Command: o.Command, TS: now, Nonce: nonce, Args: o.Args})
	if err != nil {
		return CommandResult{}, err
	}
	opts := paho.NewClientOptions().AddBroker(c.Broker).SetClientID(c.ClientID).SetCleanSession(true).
		SetAutoReconnect(false).SetConnectTimeout(10 * time.Second)
	if c.PasswordFile != "" {
		u, p, err := readPasswordFile(c.PasswordFile)
		if err != nil {
			return CommandResult{}, err
		}
		opts.SetUsername(u).SetPassword(p)
	}
	tc, err := c.tlsConfig()
	if err != nil {
		return CommandResult{}, err
	}
	if tc != nil {
		opts.SetTLSConfig(tc)
	}
	results := make(chan CommandResult, 16)
	client := paho.NewClient(opts)
	if err := waitToken(ctx, client.Connect(), 15*time.Second); err != nil {
		return CommandResult{}, fmt.Errorf("mqtt: connect %s: %w", c.Broker, err)
	}
	defer client.Disconnect(250)
	if o.Wait > 0 {
		handler := func(_ paho.Client, m paho.Message) {
			var r CommandResult
			if json.Unmarshal(m.Payload(), &r) != nil || r.Event != "command" {
				return
			}
			if r.Nonce == nonce || (r.Nonce == "" && r.KeyID == o.KeyID && r.Command == o.Command) {
				select {
				case results <- r:
				default:
				}
			}
		}
		if err := waitToken(ctx, client.Subscribe(c.Prefix+"event", 1, handler), 10*time.Second); err != nil {
			return CommandResult{}, fmt.Errorf("mqtt: subscribe results: %w", err)
		}
	}
	if err := waitToken(ctx, client.Publish(c.Prefix+"cmd/"+o.Command, 1, false, msg), 10*time.Second); err != nil {
		return CommandResult{}, fmt.Errorf("mqtt: publish command: %w", err)
	}
	if o.Wait <= 0 {
		return CommandResult{Event: "command", Command: o.Command, Nonce: nonce}, nil
	}
	t := time.NewTimer(o.Wait)
	defer t.Stop()
	select {
	case r := <-results:
		return r, nil
	case <-t.C:
		return CommandResult{}, ErrNoResult
	case <-ctx.Done():
		return CommandResult{}, ctx.Err()
	}
}
