package mqtt

import (
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Config is the broker connection, the topics and the operator command
// policy. The daemon config embeds it under `mqtt:`; call SetDefaults and
// then Validate after decoding.
type Config struct {
	// Broker is tcp://host:port, mqtt://, ssl://, tls:// or mqtts://.
	Broker string `yaml:"broker"`
	// Table is the table id; the daemon fills it from its top-level table.
	Table string `yaml:"table,omitempty"`
	// Prefix of every topic (default "dicewatch/<table>/"); ends with "/".
	Prefix string `yaml:"prefix"`
	// ClientID is stable per table (default "dicewatch-<table>"), so the
	// broker keeps the session across reconnects.
	ClientID string `yaml:"client_id"`
	// QoS of published messages: 1 (default) or 2. 0 could lose messages.
	QoS int `yaml:"qos"`
	// PasswordFile holds one line "username:password". Credentials never
	// appear in the config itself nor in logs.
	PasswordFile string `yaml:"password_file"`
	// TLS: a CA to verify the broker and an optional client certificate.
	TLS TLS `yaml:"tls"`
	// StateDir holds the acknowledged-seq cursor and the command nonce
	// store; it must survive restarts.
	StateDir string `yaml:"state_dir"`
	// KeepAliveMS is the MQTT keepalive (default 10000).
	KeepAliveMS int `yaml:"keepalive_ms"`
	// RetryMaxMS caps the reconnect backoff (default 5000).
	RetryMaxMS int `yaml:"retry_max_ms"`
	// MaxInflight is how many QoS 1 messages may await PUBACK (default 64).
	MaxInflight int `yaml:"max_inflight"`
	// ResendOnReconnect is how many already-acknowledged records are sent
	// again after every (re)connect, because a broker that crashed may have
	// acknowledged messages it had not yet saved or forwarded (default
	// 1000; consumers de-duplicate by id).
	ResendOnReconnect int `yaml:"resend_on_reconnect"`
	// Commands is the operator command policy.
	Commands Commands `yaml:"commands"`
}

// TLS names PEM files.
type TLS struct {
	CA   string `yaml:"ca"`
	Cert string `yaml:"cert"`
	Key  string `yaml:"key"`
	// ServerName overrides the name checked in the broker's certificate.
	ServerName string `yaml:"server_name"`
}

// Commands is who may send which operator command.
type Commands struct {
	// Keys are the operators' Ed25519 public keys.
	Keys []Key `yaml:"keys"`
	// Roles maps a command (noroll, shooter, dice, game) to the roles
	// allowed to send it. Defaults: noroll: [boxperson]; shooter:
	// [boxperson, stickperson]; dice and game: [boxperson, floor].
	Roles map[string][]string `yaml:"roles"`
	// WindowMS is how far a command's signed time may be from the
	// daemon's clock (default 30000).
	WindowMS int `yaml:"window_ms"`
}

// Key is one operator key.
type Key struct {
	ID       string `yaml:"id"`
	Operator string `yaml:"operator"`
	Role     string `yaml:"role"`
	// PublicKey is the base64 (standard) Ed25519 public key, as printed
	// by `dicewatch keygen`.
	PublicKey string `yaml:"public_key"`
}

// CommandNames are the operator commands, each on topic <prefix>cmd/<name>.
var CommandNames = []string{"noroll", "shooter", "dice", "game"}

var defaultRoles = map[string][]string{
	"noroll":  {"boxperson"},
	"shooter": {"boxperson", "stickperson"},
	"dice":    {"boxperson", "floor"},
	"game":    {"boxperson", "floor"},
}

// SetDefaults fills unset fields.
func (c *Config) SetDefaults() {
	if c.Prefix == "" && c.Table != "" {
		c.Prefix = "dicewatch/" + c.Table + "/"
	}
	if c.ClientID == "" && c.Table != "" {
		c.ClientID = "dicewatch-" + c.Table
	}
	if c.QoS == 0 {
		c.QoS = 1
	}
	if c.KeepAliveMS == 0 {
		c.KeepAliveMS = 10000
	}
	if c.RetryMaxMS == 0 {
		c.RetryMaxMS = 5000
	}
	if c.MaxInflight == 0 {
		c.MaxInflight = 64
	}
	if c.ResendOnReconnect == 0 {
		c.ResendOnReconnect = 1000
	}
	if c.Commands.WindowMS == 0 {
		c.Commands.WindowMS = 30000
	}
	if c.Commands.Roles == nil {
		c.Commands.Roles = map[string][]string{}
		for k, v := range defaultRoles {
			c.Commands.Roles[k] = append([]string(nil), v...)
		}
	}
}

// FieldError is one problem with one key, named by its full yaml path
// (for example "mqtt.tls.ca").
type FieldError struct {
	Key string
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

var (
	tableRE  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	idRE     = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,64}$`)
	clientRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)
)

// Problems lists every problem with the config, each naming its yaml key.
func (c Config) Problems() []FieldError {
	var ps []FieldError
	add := func(key, format string, a ...any) {
		ps = append(ps, FieldError{Key: "mqtt." + key, Msg: fmt.Sprintf(format, a...)})
	}
	tlsScheme := false
	if c.Broker == "" {
		add("broker", "is required")
	} else if u, err := url.Parse(c.Broker); err != nil || u.Host == "" || u.Port() == "" {
		add("broker", "must be scheme://host:port")
	} else if u.User != nil {
		add("broker", "must not hold credentials: put them in mqtt.password_file")
	} else {
		switch u.Scheme {
		case "tcp", "mqtt":
		case "ssl", "tls", "mqtts":
			tlsScheme = true
		default:
			add("broker", "%q must start with tcp://, mqtt://, ssl://, tls:// or mqtts://", c.Broker)
		}
	}
	if c.Table == "" {
		add("table", "is required")
	} else if !tableRE.MatchString(c.Table) {
		add("table", "%q must be 1-64 letters, digits, '-' or '_'", c.Table)
	}
	if c.Prefix == "" {
		add("prefix", "is required")
	} else if !strings.HasSuffix(c.Prefix, "/") {
		add("prefix", "%q must end with /", c.Prefix)
	} else if strings.ContainsAny(c.Prefix, "#+\x00") || strings.HasPrefix(c.Prefix, "$") {
		add("prefix", "%q must not contain MQTT wildcards or start with $", c.Prefix)
	}
	if !clientRE.MatchString(c.ClientID) {
		add("client_id", "%q must be 1-128 letters, digits, '-', '_', '.' or ':'", c.ClientID)
	}
	if c.QoS != 1 && c.QoS != 2 {
		add("qos", "%d must be 1 or 2 (0 can lose messages)", c.QoS)
	}
	if c.PasswordFile != "" {
		if _, _, err := readPasswordFile(c.PasswordFile); err != nil {
			add("password_file", "%v", err)
		}
	}
	if (c.TLS.Cert == "") != (c.TLS.Key == "") {
		add("tls.cert", "tls.cert and tls.key must be set together")
	}
	if (c.TLS.CA != "" || c.TLS.Cert != "") && c.Broker != "" && !tlsScheme {
		add("tls.ca", "TLS files are set but mqtt.broker %q is not ssl://, tls:// or mqtts://", c.Broker)
	}
	if c.TLS.CA != "" {
		if b, err := os.ReadFile(c.TLS.CA); err != nil {
			add("tls.ca", "%v", err)
		} else if !x509.NewCertPool().AppendCertsFromPEM(b) {
			add("tls.ca", "%s holds no PEM certificate", c.TLS.CA)
		}
	}
	if c.TLS.Cert != "" && c.TLS.Key != "" {
		if _, err := tls.LoadX509KeyPair(c.TLS.Cert, c.TLS.Key); err != nil {
			add("tls.cert", "cannot load the client certificate and key: %s", redactPEMError(err))
		}
	}
	if c.StateDir == "" {
		add("state_dir", "is required")
	}
	if c.KeepAliveMS < 1000 || c.KeepAliveMS > 600000 {
		add("keepalive_ms", "%d is out of range 1000..600000", c.KeepAliveMS)
	}
	if c.RetryMaxMS < 100 || c.RetryMaxMS > 600000 {
		add("retry_max_ms", "%d is out of range 100..600000", c.RetryMaxMS)
	}
	if c.MaxInflight < 1 || c.MaxInflight > 65535 {
		add("max_inflight", "%d is out of range 1..65535", c.MaxInflight)
	}
	if c.ResendOnReconnect < 0 || c.ResendOnReconnect > 1000000 {
		add("resend_on_reconnect", "%d is out of range 0..1000000", c.ResendOnReconnect)
	}
	if c.Commands.WindowMS < 1000 || c.Commands.WindowMS > 600000 {
		add("commands.window_ms", "%d is out of range 1000..600000", c.Commands.WindowMS)
	}
	seen := map[string]bool{}
	for i, k := range c.Commands.Keys {
		p := fmt.Sprintf("commands.keys[%d]", i)
		if !idRE.MatchString(k.ID) {
			add(p+".id", "%q must be 1-64 letters, digits, '-', '_', '.' or '@'", k.ID)
		} else if seen[k.ID] {
			add(p+".id", "%q is listed twice", k.ID)
		}
		seen[k.ID] = true
		if k.Operator == "" {
			add(p+".operator", "is required")
		}
		if k.Role == "" {
			add(p+".role", "is required")
		}
		if _, err := ParsePublicKey(k.PublicKey); err != nil {
			add(p+".public_key", "%v", err)
		}
	}
	names := make([]string, 0, len(c.Commands.Roles))
	for n := range c.Commands.Roles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !isCommand(n) {
			add("commands.roles."+n, "unknown command (want one of %s)", strings.Join(CommandNames, ", "))
		}
	}
	return ps
}

// redactPEMError keeps an x509/tls error short; such errors never contain
// key material, but keep them to one line.
func redactPEMError(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// Validate returns every problem joined, or nil.
func (c Config) Validate() error {
	ps := c.Problems()
	if len(ps) == 0 {
		return nil
	}
	errs := make([]error, len(ps))
	for i := range ps {
		errs[i] = &ps[i]
	}
	return errors.Join(errs...)
}

// LogValue logs the connection settings, never credentials.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("broker", c.Broker),
		slog.String("client_id", c.ClientID),
		slog.String("prefix", c.Prefix),
		slog.Bool("credentials", c.PasswordFile != ""),
		slog.Bool("tls_client_cert", c.TLS.Cert != ""),
		slog.Int("operator_keys", len(c.Commands.Keys)),
	)
}

func isCommand(n string) bool {
	for _, c := range CommandNames {
		if c == n {
			return true
		}
	}
	return false
}

// ParsePublicKey decodes a base64 Ed25519 public key.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("mqtt: public key is not base64")
	}
	if len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("mqtt: public key is %d bytes, want %d", len(b), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// readPasswordFile reads "username:password" from the first line. Errors
// never include the file's content.
func readPasswordFile(path string) (user, pass string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("mqtt: password file: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimRight(line, "\r")
	u, p, ok := strings.Cut(line, ":")
	if !ok || u == "" || p == "" {
		return "", "", fmt.Errorf("mqtt: password file %s: first line must be username:password", path)
	}
	return u, p, nil
}

// tlsConfig builds the client TLS config, or nil for a plain broker URL.
func (c Config) tlsConfig() (*tls.Config, error) {
	u, err := url.Parse(c.Broker)
	if err != nil {
		return nil, fmt.Errorf("mqtt: broker url: %w", err)
	}
	switch u.Scheme {
	case "ssl", "tls", "mqtts":
	default:
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.TLS.ServerName}
	if tc.ServerName == "" {
		tc.ServerName = u.Hostname()
	}
	if c.TLS.CA != "" {
		b, err := os.ReadFile(c.TLS.CA)
		if err != nil {
			return nil, fmt.Errorf("mqtt: tls ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("mqtt: tls ca %s: no PEM certificate", c.TLS.CA)
		}
		tc.RootCAs = pool
	}
	if c.TLS.Cert != "" {
		pair, err := tls.LoadX509KeyPair(c.TLS.Cert, c.TLS.Key)
		if err != nil {
			return nil, fmt.Errorf("mqtt: tls client certificate: %s", redactPEMError(err))
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

func (c Config) keepAlive() time.Duration { return time.Duration(c.KeepAliveMS) * time.Millisecond }
func (c Config) retryMax() time.Duration  { return time.Duration(c.RetryMaxMS) * time.Millisecond }
func (c Config) window() time.Duration    { return time.Duration(c.Commands.WindowMS) * time.Millisecond }
