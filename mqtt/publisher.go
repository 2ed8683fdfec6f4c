package mqtt

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/journal"
)

// CommandHandler applies a verified operator command. A non-nil error
// refuses it; the error text is published as the rejection detail. ctx is
// Run's: the handler must return soon once it is done, as Run waits for
// the commands in hand before it returns (a handler that does not keeps
// the daemon from stopping).
type CommandHandler func(ctx context.Context, c Command) error

// Publisher publishes a journal to the broker and takes in operator
// commands. Create it with NewPublisher, set OnCommand, then Run.
type Publisher struct {
	cfg    Config
	j      *journal.Journal
	birth  Birth
	log    *slog.Logger
	now    func() time.Time
	verify *Verifier
	nonces *NonceStore

	notify chan struct{}

	mu      sync.Mutex
	handler CommandHandler
	onAck   AckObserver
	acked   uint64 // highest seq acknowledged by the broker, contiguously
	saved   uint64 // acked as last persisted
	// saveFailing: the last cursor save failed (logged once a spell).
	saveFailing bool
	conn        bool
	runCtx      context.Context

	// journalResult, when set, journals a command's result instead of
	// Append (the daemon's queue, which keeps records in order when the
	// journal refuses some).
	journalResult func(ts time.Time, body any) error

	// sessions counts connections that got as far as streaming records.
	sessions atomic.Uint64

	// handling counts the commands being handled: Run waits for them
	// before it returns, so that a command decided (its nonce stored)
	// has its result journalled while the daemon still runs. stopped,
	// set as Run ends, turns away the commands that come after.
	handling sync.WaitGroup
	stopped  bool
}

// cursorFile is the name of the acknowledged-seq cursor in StateDir.
const cursorFile = "acked"

// NewPublisher prepares a publisher: it validates cfg (after SetDefaults),
// loads the acknowledged cursor and the nonce store from cfg.StateDir. It
// does not connect; Run does.
func NewPublisher(cfg Config, j *journal.Journal, birth Birth, log *slog.Logger) (*Publisher, error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("mqtt: config: %w", err)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.StateDir, 0o750); err != nil {
		return nil, fmt.Errorf("mqtt: state dir: %w", err)
	}
	p := &Publisher{cfg: cfg, j: j, birth: birth, log: log.With("component", "mqtt"), now: time.Now, notify: make(chan struct{}, 1)}
	acked, err := loadCursor(filepath.Join(cfg.StateDir, cursorFile), j.Epoch())
	if err != nil {
		return nil, err
	}
	if last := j.LastSeq(); acked > last {
		// The broker acknowledged records the journal no longer holds
		// (its newest records lost: restored from a backup, a damaged
		// last record taken for a torn write). The next record must not
		// take one of their seqs: consumers have its id and would drop
		// it as a re-delivery. Until review22j the cursor was set back
		// to the journal's end, and that is what happened.
		if err := fillAcknowledged(j, last, acked, p.log); err != nil {
			return nil, err
		}
	}
	p.acked, p.saved = acked, acked
	j.SetDelivered(acked)
	// Keep every stored nonce at start (the clock may be replaced by
	// SetClock); Add drops expired ones as the store grows.
	ns, err := OpenNonceStore(cfg.StateDir, time.Time{})
	if err != nil {
		return nil, err
	}
	p.nonces = ns
	v, err := NewVerifier(cfg, ns)
	if err != nil {
		ns.Close()
		return nil, err
	}
	p.verify = v
	return p, nil
}

// AckObserver is told, from the publisher's goroutine, of every journal
// record the broker acknowledged: its seq, when it was handed to the MQTT
// client and when the acknowledgement came back (QoS 0: when the client
// wrote it). It must return quickly.
type AckObserver func(seq uint64, sent, acked time.Time)

// OnAcked sets the acknowledgement observer (latency metrics). Call before Run.
func (p *Publisher) OnAcked(f AckObserver) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onAck = f
}

// JournalResultsWith makes command results journalled by f instead of the
// journal's Append: f returns once the result is durable, or held to be
// journalled later (the daemon's queue while the disk is full); the
// result is published once it is journalled. Call before Run.
func (p *Publisher) JournalResultsWith(f func(ts time.Time, body any) error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.journalResult = f
}

// SetClock replaces the clock used for command time windows and result
// timestamps (tests). Call before Run.
func (p *Publisher) SetClock(now func() time.Time) { p.now = now }

// OnCommand sets the handler for verified commands. Call before Run.
func (p *Publisher) OnCommand(h CommandHandler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.handler = h
}

// Notify wakes the publisher after an Append (it also watches the journal
// itself; Notify only shortens the wait).
func (p *Publisher) Notify() {
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

// Acked is the highest seq the broker has acknowledged (in seq order).
func (p *Publisher) Acked() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.acked
}

// Connected reports whether a broker session is up.
func (p *Publisher) Connected() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn
}

// Run connects, retrying with backoff while the broker is unreachable,
// and publishes until ctx is cancelled; then it publishes the offline
// status, saves the cursor and disconnects. It returns nil after a clean
// shutdown, or an error only for a journal failure (after the same
// offline status, so that surveillance does not see it online while
// nothing is published), and only once every command being handled has
// its result journalled. A Publisher runs once: Run is not called again.
func (p *Publisher) Run(ctx context.Context) error {
	defer p.endCommands()
	p.mu.Lock()
	p.runCtx = ctx
	p.mu.Unlock()
	backoff := 100 * time.Millisecond
	for {
		connected, err := p.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var jerr *journalError
		if errors.As(err, &jerr) {
			return err
		}
		if connected {
			backoff = 100 * time.Millisecond
		}
		p.log.Warn("broker session ended", "err", err, "retry_in", backoff)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		backoff = min(backoff*2, p.cfg.retryMax())
	}
}

type journalError struct{ err error }

func (e *journalError) Error() string { return e.err.Error() }
func (e *journalError) Unwrap() error { return e.err }

func (p *Publisher) topic(kind string) string { return p.cfg.Prefix + kind }

func (p *Publisher) status(online bool, reason, detail string) []byte {
	return statusPayload(p.cfg, p.birth, p.j.Epoch(), p.j.LastSeq(), p.now(), online, reason, detail)
}

// statusPayload is the retained status message.
func statusPayload(cfg Config, birth Birth, epoch string, lastSeq uint64, now time.Time, online bool, reason, detail string) []byte {
	s := Status{
		Schema: StatusSchema, Table: cfg.Table, ID: epoch + "-status-" + randomID(6),
		TS: formatTS(now), Status: "offline", ClientID: cfg.ClientID, LastSeq: lastSeq, Reason: reason, Detail: detail,
		Version: birth.Version, ConfigHash: birth.ConfigHash, CalibrationHash: birth.CalibrationHash,
	}
	if online {
		s.Status = "online"
	}
	b, _ := marshalNoEscape(s)
	return b
}

func (p *Publisher) clientOptions(lost chan<- error) (*paho.ClientOptions, error) {
	// The will is offline, retained: the broker publishes it if the
	// connection is lost. A clean Disconnect does not send it, so Run
	// publishes offline itself on shutdown.
	o, err := clientOptions(p.cfg, p.status(false, ReasonConnectionLost, ""), 10*time.Second)
	if err != nil {
		return nil, err
	}
	o.SetConnectionLostHandler(func(_ paho.Client, err error) {
		select {
		case lost <- err:
		default:
		}
	})
	return o, nil
}

// clientOptions are the daemon's connection options: its client id and
// persistent session, credentials, TLS, and will (the retained status
// published if the connection is lost).
func clientOptions(cfg Config, will []byte, timeout time.Duration) (*paho.ClientOptions, error) {
	o := paho.NewClientOptions().AddBroker(cfg.Broker).SetClientID(cfg.ClientID).
		SetCleanSession(false).SetAutoReconnect(false).SetConnectRetry(false).
		SetKeepAlive(cfg.keepAlive()).SetPingTimeout(cfg.keepAlive() / 2).
		SetConnectTimeout(timeout).SetWriteTimeout(timeout).
		SetOrderMatters(true).SetStore(paho.NewMemoryStore()).
		SetResumeSubs(false)
	o.SetBinaryWill(cfg.Prefix+"status", will, 1, true)
	if cfg.PasswordFile != "" {
		u, pw, err := readPasswordFile(cfg.PasswordFile)
		if err != nil {
			return nil, err
		}
		o.SetUsername(u).SetPassword(pw)
	}
	tc, err := cfg.tlsConfig()
	if err != nil {
		return nil, err
	}
	if tc != nil {
		o.SetTLSConfig(tc)
	}
	return o, nil
}

// PublishOffline publishes the retained status offline with reason and
// detail, once, for a daemon that stops before its publisher runs: the
// journal refused at start (reason journal_damaged). Without it the
// retained status says whatever it said last (online, if the last run
// was killed before its will went out), while the table publishes
// nothing. It connects as the daemon does (its client id and persistent
// session, subscribing to nothing: commands queued for the daemon stay
// queued, unacknowledged) and gives up when ctx ends: a broker that is
// down or does not answer must not hold up the exit. epoch and lastSeq
// are the journal's id and newest seq, as far as they can be read.
func PublishOffline(ctx context.Context, cfg Config, birth Birth, epoch string, lastSeq uint64, reason, detail string) error {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("mqtt: config: %w", err)
	}
	if _, err := hex.DecodeString(epoch); err != nil || len(epoch) != 16 {
		epoch = unknownEpoch
	}
	msg := statusPayload(cfg, birth, epoch, lastSeq, time.Now(), false, reason, clipDetail(detail))
	limit := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		limit = max(time.Until(d), time.Millisecond)
	}
	// The will says the same, should the connection drop before the
	// status is acknowledged.
	o, err := clientOptions(cfg, msg, limit)
	if err != nil {
		return err
	}
	client := paho.NewClient(o)
	if err := waitToken(ctx, client.Connect(), limit); err != nil {
		client.Disconnect(0)
		return fmt.Errorf("mqtt: connect %s: %w", cfg.Broker, err)
	}
	err = waitToken(ctx, client.Publish(cfg.Prefix+"status", 1, true, msg), limit)
	client.Disconnect(250)
	if err != nil {
		return fmt.Errorf("mqtt: publish status: %w", err)
	}
	return nil
}

// unknownEpoch stands in a status id for a journal id that cannot be read
// (the status schema's id begins with 16 hex digits).
const unknownEpoch = "0000000000000000"

type inflight struct {
	seq  uint64
	tok  paho.Token
	sent time.Time
}

// session runs one broker connection. connected reports whether it got as
// far as a CONNACK.
func (p *Publisher) session(ctx context.Context) (connected bool, err error) {
	lost := make(chan error, 1)
	opts, err := p.clientOptions(lost)
	if err != nil {
		return false, err
	}
	client := paho.NewClient(opts)
	tok := client.Connect()
	if err := waitToken(ctx, tok, 15*time.Second); err != nil {
		client.Disconnect(0)
		return false, fmt.Errorf("mqtt: connect %s: %w", p.cfg.Broker, err)
	}
	sessionPresent := false
	if ct, ok := tok.(*paho.ConnectToken); ok {
		sessionPresent = ct.SessionPresent()
	}
	p.setConn(true)
	defer p.setConn(false)

	sub := client.Subscribe(p.cfg.Prefix+"cmd/+", 1, p.onMessage)
	if err := waitToken(ctx, sub, 10*time.Second); err != nil {
		client.Disconnect(0)
		return true, fmt.Errorf("mqtt: subscribe commands: %w", err)
	}
	st := client.Publish(p.topic("status"), 1, true, p.status(true, "", ""))
	if err := waitToken(ctx, st, 10*time.Second); err != nil {
		client.Disconnect(0)
		return true, fmt.Errorf("mqtt: publish status: %w", err)
	}

	acked := p.Acked()
	start := uint64(1)
	if acked+1 > uint64(p.cfg.ResendOnReconnect) {
		start = acked + 1 - uint64(p.cfg.ResendOnReconnect)
	}
	if first := p.j.FirstSeq(); start < first {
		start = first
	}
	// Retained state: republish the newest state record before start;
	// later ones go out in seq order with everything else.
	if start > 1 {
		if rec, ok, err := p.j.LastOfKind("state", start-1); err != nil {
			p.shutdown(client, nil, ReasonShutdown, "")
			return true, &journalError{err}
		} else if ok {
			t := client.Publish(p.topic("state"), byte(p.cfg.QoS), true, Encode(p.cfg.Table, rec))
			if err := waitToken(ctx, t, 10*time.Second); err != nil {
				client.Disconnect(0)
				return true, fmt.Errorf("mqtt: publish state: %w", err)
			}
		}
	}
	p.sessions.Add(1)
	p.log.Info("connected", "broker", p.cfg.Broker, "client_id", p.cfg.ClientID, "session_present", sessionPresent, "acked", acked, "resend_from", start)

	r := p.j.Reader(start)
	defer r.Close()
	p.mu.Lock()
	onAck := p.onAck
	p.mu.Unlock()
	var q []inflight
	var dirtySince time.Time
	for {
		changed := p.j.Changed()
		caughtUp := false
		for len(q) < p.cfg.MaxInflight {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				caughtUp = true
				break
			}
			if err != nil {
				// Run returns and publishes no more: say so on the
				// retained status (a bare disconnect leaves it online,
				// and the will goes only with a lost connection). A
				// record damaged on disk stops every start the same
				// way, so it has a reason of its own: surveillance
				// sees the table stay offline until a person repairs
				// the journal, not a table shutting down.
				reason, detail := ReasonShutdown, ""
				if errors.Is(err, journal.ErrCorrupt) {
					reason = ReasonJournalDamaged
					detail = clipDetail(err.Error() + "; nothing after it is published until the journal is repaired (dicewatch journal repair)")
				}
				p.shutdown(client, q, reason, detail)
				return true, &journalError{fmt.Errorf("mqtt: read journal: %w", err)}
			}
			sent := time.Now()
			t := client.Publish(p.topic(rec.Kind), byte(p.cfg.QoS), rec.Kind == "state", Encode(p.cfg.Table, rec))
			q = append(q, inflight{rec.Seq, t, sent})
		}
		// Retire every completed token at the head, in order.
		for len(q) > 0 && tokenDone(q[0].tok) {
			if err := q[0].tok.Error(); err != nil {
				client.Disconnect(0)
				return true, fmt.Errorf("mqtt: publish seq %d: %w", q[0].seq, err)
			}
			p.advance(q[0].seq)
			if onAck != nil {
				onAck(q[0].seq, q[0].sent, time.Now())
			}
			if dirtySince.IsZero() {
				dirtySince = time.Now()
			}
			q = q[1:]
		}
		if !dirtySince.IsZero() && (len(q) == 0 || time.Since(dirtySince) > 50*time.Millisecond) {
			p.saveCursor()
			dirtySince = time.Time{}
		}
		if !caughtUp && len(q) < p.cfg.MaxInflight {
			// Reading stopped at a full window and acks have since freed
			// room: read on now. changed may already have fired for
			// the records still to read, and nothing else would wake us.
			continue
		}
		var head <-chan struct{}
		if len(q) > 0 {
			head = q[0].tok.Done()
		}
		var more <-chan struct{}
		if len(q) < p.cfg.MaxInflight {
			more = changed
		}
		select {
		case <-ctx.Done():
			p.shutdown(client, q, ReasonShutdown, "")
			return true, ctx.Err()
		case err := <-lost:
			p.saveCursor()
			return true, fmt.Errorf("mqtt: connection lost: %w", err)
		case <-head:
		case <-more:
		case <-p.notify:
		}
	}
}

// endCommands turns away later commands, waits for those being handled
// (their handlers see Run's context cancelled) and closes the nonce store.
func (p *Publisher) endCommands() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.handling.Wait()
	p.nonces.Close()
}

func tokenDone(t paho.Token) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}

func (p *Publisher) advance(seq uint64) {
	p.mu.Lock()
	if seq > p.acked {
		p.acked = seq
	}
	p.mu.Unlock()
	p.j.SetDelivered(seq)
}

func (p *Publisher) setConn(up bool) {
	p.mu.Lock()
	p.conn = up
	p.mu.Unlock()
}

// shutdown waits briefly for in-flight acknowledgements, saves the cursor,
// publishes the offline status and disconnects.
func (p *Publisher) shutdown(client paho.Client, q []inflight, reason, detail string) {
	deadline := time.NewTimer(2 * time.Second)
	defer deadline.Stop()
wait:
	for _, f := range q {
		select {
		case <-f.tok.Done():
			if f.tok.Error() != nil {
				break wait
			}
			p.advance(f.seq)
		case <-deadline.C:
			break wait
		}
	}
	p.saveCursor()
	t := client.Publish(p.topic("status"), 1, true, p.status(false, reason, detail))
	t.WaitTimeout(2 * time.Second)
	client.Disconnect(250)
	p.log.Info("disconnected", "acked", p.Acked())
}

func waitToken(ctx context.Context, t paho.Token, limit time.Duration) error {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-t.Done():
		return t.Error()
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return errors.New("timed out")
	}
}

func (p *Publisher) saveCursor() {
	p.mu.Lock()
	acked, saved := p.acked, p.saved
	p.mu.Unlock()
	if acked == saved {
		return
	}
	data := cursorLine(acked, p.j.Epoch())
	path := filepath.Join(p.cfg.StateDir, cursorFile)
	err := writeFileAtomic(path, []byte(data))
	if err != nil {
		// A full disk has no room for a new file, but the cursor's own
		// block takes the few bytes again. A write torn by a crash can
		// mix the new digits with the old (19999 -> 20000 cut after one
		// byte reads 29999), which the line's checksum catches:
		// loadCursor reads it as 0 and everything is sent again, which
		// consumers de-duplicate by id.
		_ = os.Remove(path + ".tmp")
		if ierr := overwriteFile(path, []byte(data)); ierr != nil {
			err = errors.Join(err, ierr)
		} else {
			err = nil
		}
	}
	p.mu.Lock()
	failing := p.saveFailing
	if err == nil {
		p.saved = acked
	}
	p.saveFailing = err != nil
	p.mu.Unlock()
	switch {
	case err != nil && !failing:
		// Once per spell: it is tried again at every acknowledgement.
		p.log.Error("save acknowledged cursor: a restart sends the records since the last saved one again", "err", err)
	case err == nil && failing:
		p.log.Info("acknowledged cursor saved again", "acked", acked)
	}
}

// overwriteFile writes b over the start of the existing file path, cuts it
// to len(b) and syncs it: no new file, so no new block on a full disk.
func overwriteFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, 0)
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// cursorLine is the cursor file's text: "<seq> <journal epoch> <crc>",
// crc the CRC-32 (IEEE) of "<seq> <journal epoch>" in hex.
func cursorLine(seq uint64, epoch string) string {
	body := fmt.Sprintf("%d %s", seq, epoch)
	return fmt.Sprintf("%s %08x\n", body, crc32.ChecksumIEEE([]byte(body)))
}

// loadCursor reads the cursor file (cursorLine; a line without the
// checksum, as written before it, is read too). A cursor for another
// journal, a damaged one (the checksum does not match: a write torn by a
// crash) or none is 0: everything is sent again rather than skipped.
func loadCursor(path, epoch string) (uint64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("mqtt: cursor: %w", err)
	}
	f := strings.Fields(string(b))
	switch {
	case len(f) == 3:
		if fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(f[0]+" "+f[1]))) != f[2] {
			return 0, nil
		}
	case len(f) != 2:
		return 0, nil
	}
	if f[1] != epoch {
		return 0, nil
	}
	n, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, nil
	}
	return n, nil
}

// onMessage handles an inbound command: verify, apply, journal the result.
func (p *Publisher) onMessage(_ paho.Client, m paho.Message) {
	name := m.Topic()[strings.LastIndexByte(m.Topic(), '/')+1:]
	p.HandleCommand(name, m.Payload())
}

// CommandResult is the body of the "event" record journalled for every
// command received.
type CommandResult struct {
	Event     string `json:"event"` // "command"
	Command   string `json:"command"`
	Result    string `json:"result"` // accepted or rejected
	Reason    string `json:"reason,omitempty"`
	Detail    string `json:"detail,omitempty"`
	KeyID     string `json:"key_id,omitempty"`
	Operator  string `json:"operator,omitempty"`
	Role      string `json:"role,omitempty"`
	Nonce     string `json:"nonce,omitempty"`
	CommandTS string `json:"command_ts,omitempty"`
}

// HandleCommand verifies a command message that arrived on cmd/<name>,
// passes it to the handler if valid, and journals the result as an
// "event" record. It is what the MQTT subscription calls; it never panics.
func (p *Publisher) HandleCommand(name string, msg []byte) CommandResult {
	now := p.now()
	res := CommandResult{Event: "command", Command: clip(name), Result: "accepted"}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		// Not verified, so its nonce is not stored: nothing is decided,
		// and the sender, getting no result, may send it again.
		p.log.Warn("command after the publisher stopped: not handled", "command", res.Command)
		res.Result, res.Reason, res.Detail = "rejected", ReasonInternal, "the daemon is stopping"
		return res
	}
	p.handling.Add(1)
	p.mu.Unlock()
	defer p.handling.Done()
	c, err := p.verify.Verify(name, msg, now)
	var rej *RejectError
	if err != nil {
		if !errors.As(err, &rej) {
			rej = &RejectError{Reason: ReasonInternal, Detail: err.Error()}
		}
	} else {
		res.KeyID, res.Operator, res.Role, res.Nonce, res.CommandTS = c.KeyID, c.Operator, c.Role, c.Nonce, formatTS(c.TS)
		p.mu.Lock()
		h, ctx := p.handler, p.runCtx
		p.mu.Unlock()
		if ctx == nil {
			ctx = context.Background()
		}
		if h != nil {
			if herr := h(ctx, c); herr != nil {
				rej = &RejectError{Reason: ReasonRefused, Detail: clip(herr.Error())}
			}
		}
	}
	if rej != nil {
		res.Result, res.Reason, res.Detail = "rejected", rej.Reason, rej.Detail
		if res.KeyID == "" {
			res.KeyID, res.Operator, res.Role, res.Nonce = rej.KeyID, rej.Operator, rej.Role, rej.Nonce
		}
	}
	p.mu.Lock()
	journalResult := p.journalResult
	p.mu.Unlock()
	if journalResult != nil {
		if err := journalResult(now, res); err != nil {
			p.log.Error("journal command result", "err", err, "command", res.Command, "result", res.Result)
		}
	} else if _, err := p.j.Append("event", now, res); err != nil {
		p.log.Error("journal command result", "err", err, "command", res.Command, "result", res.Result)
	}
	p.log.Info("command", "command", res.Command, "result", res.Result, "reason", res.Reason, "key_id", res.KeyID, "operator", res.Operator)
	p.Notify()
	return res
}

// clipDetail bounds a status detail (the schema's maxLength).
func clipDetail(s string) string {
	if len(s) <= 400 {
		return s
	}
	cut := 397
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// maxFill bounds the events fillAcknowledged journals (about 250 bytes
// each).
const maxFill = 100000

// fillAcknowledged journals, for each seq after last up to acked (which
// the broker acknowledged and the journal lost), an event journal_damaged
// with that seq and id: a consumer that had the lost record drops it as a
// re-delivery, and the next record takes acked+1, an id nobody has.
func fillAcknowledged(j *journal.Journal, last, acked uint64, log *slog.Logger) error {
	n := acked - last
	log.Error("acknowledged cursor ahead of the journal: its newest records are lost; journalling an event in place of each, so that no new record takes a published seq",
		"acked", acked, "last_seq", last, "records", n)
	if n > maxFill {
		return fmt.Errorf("mqtt: the broker acknowledged seq %d but the journal ends at seq %d: %d records lost, more than %d to journal in their place; a new record would take a seq (and id) consumers already have. Find the journal that holds them, or, to start a new journal, move %s and the journal folder aside",
			acked, last, n, maxFill, cursorFile)
	}
	body := map[string]any{"event": journal.DamagedEvent, "first_seq": last + 1, "last_seq": acked, "records": n,
		"reason": "acknowledged_not_in_journal",
		"detail": fmt.Sprintf("the broker acknowledged seq %d; the journal ended at seq %d", acked, last)}
	now := time.Now()
	for j.NextSeq() <= acked {
		if _, err := j.AppendNoWait("event", now, body); err != nil {
			return fmt.Errorf("mqtt: journal the acknowledged records lost: %w", err)
		}
	}
	if err := j.WaitDurable(acked); err != nil {
		return fmt.Errorf("mqtt: journal the acknowledged records lost: %w", err)
	}
	return nil
}
