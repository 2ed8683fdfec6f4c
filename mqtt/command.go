package mqtt

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// CommandSchema is the schema of a signed command's inner payload.
const CommandSchema = "dicewatch/cmd/v1"

// signingContext is prepended to the payload bytes before signing, so a
// signature over a command can never be valid for anything else.
const signingContext = "dicewatch/cmd/v1\n"

// MaxCommandBytes bounds an inbound command message.
const MaxCommandBytes = 16 << 10

// Envelope is what travels on <prefix>cmd/<name>: the exact payload bytes
// (base64) and the Ed25519 signature over signingContext+payload.
type Envelope struct {
	KeyID   string `json:"key_id"`
	Payload string `json:"payload"` // base64 (standard) of the CommandPayload JSON
	Sig     string `json:"sig"`     // base64 (standard) Ed25519 signature
}

// CommandPayload is the signed content of a command.
type CommandPayload struct {
	Schema  string          `json:"schema"`  // CommandSchema
	Table   string          `json:"table"`   // must be this daemon's table
	Command string          `json:"command"` // noroll, shooter, dice, game; must match the topic
	TS      time.Time       `json:"ts"`      // signing time, RFC 3339
	Nonce   string          `json:"nonce"`   // 16-64 of [A-Za-z0-9_-], never reused
	Args    json.RawMessage `json:"args"`    // a JSON object, see the command's schema
}

// Command is a verified command handed to the daemon.
type Command struct {
	Name     string          // noroll, shooter, dice, game
	Args     json.RawMessage // the command's arguments (a JSON object)
	KeyID    string
	Operator string
	Role     string
	Nonce    string
	TS       time.Time // signed time
	Received time.Time
}

// Rejection reasons, as published in the command result event.
const (
	ReasonMalformed      = "malformed"       // not a valid envelope or payload
	ReasonUnsigned       = "unsigned"        // no key id or signature
	ReasonUnknownKey     = "unknown_key"     // key id not in the config
	ReasonBadSignature   = "bad_signature"   // forged or altered
	ReasonWrongTable     = "wrong_table"     // signed for another table
	ReasonWrongTopic     = "wrong_topic"     // signed command differs from topic
	ReasonUnknownCommand = "unknown_command" // not noroll/shooter/dice/game
	ReasonExpired        = "expired"         // signed time too old
	ReasonNotYetValid    = "not_yet_valid"   // signed time too far ahead
	ReasonReplayed       = "replayed"        // nonce seen before
	ReasonForbidden      = "forbidden"       // the key's role may not send this
	ReasonRefused        = "refused"         // verified, but the daemon refused it
	ReasonInternal       = "internal"        // the nonce store failed
)

// RejectError is a verification failure with its reason code.
type RejectError struct {
	Reason string
	Detail string
	// Known after the signature verified (or the key was found).
	KeyID, Operator, Role, Nonce, Command string
}

func (e *RejectError) Error() string {
	return "mqtt: command rejected: " + e.Reason + ": " + e.Detail
}

var nonceRE = regexp.MustCompile(`^[A-Za-z0-9_-]{16,64}$`)

// SignCommand builds the message to publish on <prefix>cmd/<p.Command>.
func SignCommand(priv ed25519.PrivateKey, keyID string, p CommandPayload) ([]byte, error) {
	if p.Schema == "" {
		p.Schema = CommandSchema
	}
	p.TS = p.TS.UTC()
	if len(p.Args) == 0 {
		p.Args = json.RawMessage(`{}`)
	}
	payload, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("mqtt: sign command: %w", err)
	}
	sig := ed25519.Sign(priv, append([]byte(signingContext), payload...))
	return json.Marshal(Envelope{
		KeyID:   keyID,
		Payload: base64.StdEncoding.EncodeToString(payload),
		Sig:     base64.StdEncoding.EncodeToString(sig),
	})
}

// NewNonce returns a random nonce for a command.
func NewNonce() string {
	return randomID(16)
}

type keyEntry struct {
	Key
	pub ed25519.PublicKey
}

// Verifier checks signed commands against the config's keys and roles,
// and remembers nonces (persisted) so a command cannot be replayed, even
// across restarts.
type Verifier struct {
	table  string
	keys   map[string]keyEntry
	roles  map[string]map[string]bool
	window time.Duration
	nonces *NonceStore
}

// NewVerifier builds a verifier for cfg (SetDefaults applied). nonces may
// be nil only in tests that do not check replay.
func NewVerifier(cfg Config, nonces *NonceStore) (*Verifier, error) {
	v := &Verifier{table: cfg.Table, keys: map[string]keyEntry{}, roles: map[string]map[string]bool{}, window: cfg.window(), nonces: nonces}
	if v.window <= 0 {
		v.window = 30 * time.Second
	}
	for _, k := range cfg.Commands.Keys {
		pub, err := ParsePublicKey(k.PublicKey)
		if err != nil {
			return nil, fmt.Errorf("mqtt: key %q: %w", k.ID, err)
		}
		v.keys[k.ID] = keyEntry{Key: k, pub: pub}
	}
	for cmd, rs := range cfg.Commands.Roles {
		m := map[string]bool{}
		for _, r := range rs {
			m[r] = true
		}
		v.roles[cmd] = m
	}
	return v, nil
}

// Verify checks a command message received on topic <prefix>cmd/<name>
// (name is the topic's last level). It returns a *RejectError on failure.
// It never panics on any input.
func (v *Verifier) Verify(name string, msg []byte, now time.Time) (Command, error) {
	c, err := v.check(name, msg, now)
	if err != nil {
		return Command{}, err
	}
	if v.nonces != nil {
		fresh, err := v.nonces.Add(c.KeyID, c.Nonce, c.TS.Add(v.window), now)
		if err != nil {
			return Command{}, v.reject(ReasonInternal, "nonce store: "+err.Error(), c)
		}
		if !fresh {
			return Command{}, v.reject(ReasonReplayed, "nonce already used", c)
		}
	}
	return c, nil
}

func (v *Verifier) reject(reason, detail string, c Command) *RejectError {
	return &RejectError{Reason: reason, Detail: detail, KeyID: c.KeyID, Operator: c.Operator, Role: c.Role, Nonce: c.Nonce, Command: c.Name}
}

// ParseEnvelope decodes a command message strictly, without checking the
// signature.
func ParseEnvelope(msg []byte) (Envelope, []byte, error) {
	var env Envelope
	if len(msg) > MaxCommandBytes {
		return env, nil, fmt.Errorf("message is %d bytes, limit %d", len(msg), MaxCommandBytes)
	}
	if err := strictUnmarshal(msg, &env); err != nil {
		return env, nil, err
	}
	if env.Payload == "" {
		return env, nil, errors.New("payload is missing")
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return env, nil, errors.New("payload is not base64")
	}
	return env, payload, nil
}

// ParsePayload decodes a command payload strictly.
func ParsePayload(payload []byte) (CommandPayload, error) {
	var p CommandPayload
	if err := strictUnmarshal(payload, &p); err != nil {
		return p, err
	}
	switch {
	case p.Schema != CommandSchema:
		return p, fmt.Errorf("schema %q is not %s", clip(p.Schema), CommandSchema)
	case p.Table == "":
		return p, errors.New("table is missing")
	case p.Command == "":
		return p, errors.New("command is missing")
	case p.TS.IsZero():
		return p, errors.New("ts is missing")
	case !nonceRE.MatchString(p.Nonce):
		return p, errors.New("nonce must be 16-64 of A-Z a-z 0-9 _ -")
	}
	if len(p.Args) == 0 || p.Args[0] != '{' {
		return p, errors.New("args must be a JSON object")
	}
	return p, nil
}

func (v *Verifier) check(name string, msg []byte, now time.Time) (Command, error) {
	c := Command{Name: name, Received: now}
	env, payload, err := ParseEnvelope(msg)
	if err != nil {
		if env.KeyID == "" && env.Sig == "" && err.Error() == "payload is missing" {
			return c, v.reject(ReasonUnsigned, "no key_id, payload or sig", c)
		}
		return c, v.reject(ReasonMalformed, err.Error(), c)
	}
	if env.KeyID == "" || env.Sig == "" {
		return c, v.reject(ReasonUnsigned, "key_id and sig are required", c)
	}
	k, ok := v.keys[env.KeyID]
	if !ok {
		c.KeyID = clip(env.KeyID)
		return c, v.reject(ReasonUnknownKey, "key id is not configured", c)
	}
	c.KeyID, c.Operator, c.Role = k.ID, k.Operator, k.Role
	sig, err := base64.StdEncoding.DecodeString(env.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return c, v.reject(ReasonBadSignature, "signature is not 64 base64 bytes", c)
	}
	if !ed25519.Verify(k.pub, append([]byte(signingContext), payload...), sig) {
		return c, v.reject(ReasonBadSignature, "signature does not verify", c)
	}
	p, err := ParsePayload(payload)
	if err != nil {
		return c, v.reject(ReasonMalformed, err.Error(), c)
	}
	c.Nonce, c.TS, c.Args = p.Nonce, p.TS.UTC(), p.Args
	switch {
	case p.Table != v.table:
		return c, v.reject(ReasonWrongTable, fmt.Sprintf("signed for table %q", clip(p.Table)), c)
	case !isCommand(p.Command):
		return c, v.reject(ReasonUnknownCommand, fmt.Sprintf("command %q", clip(p.Command)), c)
	case p.Command != name:
		return c, v.reject(ReasonWrongTopic, fmt.Sprintf("signed command %q arrived on cmd/%s", p.Command, clip(name)), c)
	}
	if d := now.Sub(p.TS); d > v.window {
		return c, v.reject(ReasonExpired, fmt.Sprintf("signed %s before receipt, window %s", d.Round(time.Millisecond), v.window), c)
	} else if -d > v.window {
		return c, v.reject(ReasonNotYetValid, fmt.Sprintf("signed %s after receipt, window %s", (-d).Round(time.Millisecond), v.window), c)
	}
	if !v.roles[name][k.Role] {
		return c, v.reject(ReasonForbidden, fmt.Sprintf("role %q may not send %s", k.Role, name), c)
	}
	if err := checkArgs(name, p.Args); err != nil {
		return c, v.reject(ReasonMalformed, err.Error(), c)
	}
	return c, nil
}

// checkArgs applies the per-command argument rules (see schema/cmd-*.json).
func checkArgs(name string, args json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(args, &m); err != nil || m == nil {
		return errors.New("args must be a JSON object")
	}
	field := "action"
	if name == "noroll" {
		field = "cause"
	}
	raw, ok := m[field]
	if !ok {
		return fmt.Errorf("args.%s is required for %s", field, name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" || len(s) > 200 {
		return fmt.Errorf("args.%s must be a string of 1-200 bytes", field)
	}
	return nil
}

func strictUnmarshal(b []byte, v any) error {
	if !utf8.Valid(b) {
		return errors.New("not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad JSON: %s", clip(err.Error()))
	}
	if dec.More() {
		return errors.New("bad JSON: trailing data")
	}
	return nil
}

// clip bounds attacker-controlled text copied into results and logs.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

// NonceStore remembers (key id, nonce) pairs until they expire, in memory
// and in an fsync'd append-only file, so a replay is caught after a
// restart too.
//
// The file keeps nonceReserve bytes allocated past its end (on Linux), so
// commands go on being recorded while its disk is full. A line the disk
// cuts short is cut off again, and the command refused: a nonce is
// never taken as recorded unless it is on disk.
type NonceStore struct {
	mu        sync.Mutex
	compactAt int // entries that trigger dropping expired ones (default 4096)
	path      string
	f         *os.File
	size      int64 // bytes of whole lines in f
	closed    bool
	seen      map[string]time.Time
}

// nonceReserve is the room the nonce file keeps allocated past its end:
// some 700 commands at about 90 bytes a line.
const nonceReserve = 64 << 10

// OpenNonceStore loads the store in dir (file "nonces"), dropping entries
// expired at now (none if now is zero) and anything after the last whole
// line (a tail torn or zero-filled by a power cut). It rewrites the file
// with the live entries; where that fails (a full disk: the rewrite is a
// new file) it writes on after the old file's last whole line instead.
func OpenNonceStore(dir string, now time.Time) (*NonceStore, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("mqtt: nonce store: %w", err)
	}
	s := &NonceStore{path: filepath.Join(dir, "nonces"), seen: map[string]time.Time{}}
	b, err := os.ReadFile(s.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("mqtt: nonce store: %w", err)
	}
	parseNonces(b, func(key string, t time.Time) {
		if now.IsZero() || t.After(now) {
			s.seen[key] = t
		}
	})
	if rerr := s.rewrite(); rerr != nil {
		// Append to the file, cut after its last whole line: cutting
		// needs no room. The file is read again: the rewrite may have
		// put its new file in place before it failed.
		b, err := os.ReadFile(s.path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("mqtt: nonce store: %w (rewrite: %w)", err, rerr)
		}
		whole := parseNonces(b, func(string, time.Time) {})
		f, err := os.OpenFile(s.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o640)
		if err != nil {
			return nil, fmt.Errorf("mqtt: nonce store: %w (rewrite: %w)", err, rerr)
		}
		if err := f.Truncate(whole); err != nil {
			f.Close()
			return nil, fmt.Errorf("mqtt: nonce store: %w (rewrite: %w)", err, rerr)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, fmt.Errorf("mqtt: nonce store: %w (rewrite: %w)", err, rerr)
		}
		s.f, s.size = f, whole
		reserveSpace(f, whole, nonceReserve)
	}
	return s, nil
}

// parseNonces calls add for each whole line of a nonce file and returns
// the end of the last one; a last line without its newline (torn), and
// lines that do not parse, are skipped.
func parseNonces(b []byte, add func(key string, expires time.Time)) int64 {
	var whole int64
	for off := 0; off < len(b); {
		n := bytes.IndexByte(b[off:], '\n')
		if n < 0 {
			break // a last line without its end: torn
		}
		parts := strings.Fields(string(b[off : off+n]))
		off += n + 1
		if len(parts) != 3 {
			continue
		}
		exp, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			continue
		}
		whole = int64(off)
		add(parts[1]+" "+parts[2], time.Unix(0, exp))
	}
	return whole
}

// openAppend opens the nonce file for appending (a variable so that a test
// can make it fail).
var openAppend = func(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
}

// rewrite replaces the file with the live entries and reopens it for
// appending. On failure the old file stays open if it is still the one at
// the path; if the new file was put in place before the failure (its
// directory's sync or its reopening failed), the old one is closed, since
// what is appended to it would be lost, and Add opens the new one.
func (s *NonceStore) rewrite() error {
	var buf bytes.Buffer
	for k, t := range s.seen {
		fmt.Fprintf(&buf, "%d %s\n", t.UnixNano(), k)
	}
	if err := writeFileAtomic(s.path, buf.Bytes()); err != nil {
		if s.f != nil && !s.atPath() {
			s.f.Close()
			s.f = nil
		}
		return err
	}
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	return s.reopen()
}

// atPath reports whether the open file is still the one at the path.
func (s *NonceStore) atPath() bool {
	a, err := s.f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(s.path)
	return err == nil && os.SameFile(a, b)
}

// reopen opens the file at the path for appending (s.f is nil). A file
// put in place by writeFileAtomic holds whole lines only.
func (s *NonceStore) reopen() error {
	f, err := openAppend(s.path)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	s.f, s.size = f, st.Size()
	reserveSpace(f, s.size, nonceReserve)
	return nil
}

// Add records a nonce until expires. It reports false if the pair was
// already recorded and has not expired. An error means the nonce could
// not be recorded durably (nothing of it is left in the file), so the
// command must be refused.
func (s *NonceStore) Add(keyID, nonce string, expires, now time.Time) (bool, error) {
	k := keyID + " " + nonce
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.seen[k]; ok && t.After(now) {
		return false, nil
	}
	if s.closed {
		return false, errors.New("mqtt: nonce store closed")
	}
	if s.f == nil {
		// A compaction put its new file in place but could not open it.
		if err := s.reopen(); err != nil {
			return false, err
		}
	}
	line := fmt.Sprintf("%d %s\n", expires.UnixNano(), k)
	if _, err := s.f.WriteString(line); err != nil {
		// Cut off what part of the line was written, so the next line
		// does not run into it.
		if terr := s.f.Truncate(s.size); terr != nil {
			return false, fmt.Errorf("%w (cutting the partial line: %w)", err, terr)
		}
		return false, err
	}
	if err := s.f.Sync(); err != nil {
		_ = s.f.Truncate(s.size)
		return false, err
	}
	s.size += int64(len(line))
	s.seen[k] = expires
	reserveSpace(s.f, s.size, nonceReserve)
	if len(s.seen) > s.limit() {
		for kk, t := range s.seen {
			if !t.After(now) {
				delete(s.seen, kk)
			}
		}
		// A compaction that fails (a full disk) leaves the old file in
		// use; the nonce is recorded either way. It is tried again at
		// the next command.
		_ = s.rewrite()
	}
	return true, nil
}

// Close closes the store's file.
func (s *NonceStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	// On failure the temporary file goes: on a full disk it holds the
	// room it took.
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func (s *NonceStore) limit() int {
	if s.compactAt > 0 {
		return s.compactAt
	}
	return 4096
}
