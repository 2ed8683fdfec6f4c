package mqtt

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// arrival is one decision as the bench subscriber got it.
type arrival struct {
	seq uint64
	at  time.Time
}

// benchRig is a broker, a running publisher on a fresh journal, and a
// QoS 1 subscriber to the roll topic that reports each decision's seq and
// time of receipt on a channel, in the order the broker delivered them.
func benchRig(b *testing.B, opts ...mqtttest.Option) (*journal.Journal, *Publisher, <-chan arrival) {
	b.Helper()
	br := mqtttest.StartBroker(b, opts...)
	got := make(chan arrival, 1<<20)
	o := paho.NewClientOptions().AddBroker(br.URL()).SetClientID("bench-sub").SetCleanSession(true).SetOrderMatters(true)
	c := paho.NewClient(o)
	if t := c.Connect(); !t.WaitTimeout(10*time.Second) || t.Error() != nil {
		b.Fatal(t.Error())
	}
	b.Cleanup(func() { c.Disconnect(100) })
	h := func(_ paho.Client, m paho.Message) {
		at := time.Now()
		var e struct {
			Seq uint64 `json:"seq"`
		}
		if json.Unmarshal(m.Payload(), &e) == nil && e.Seq > 0 {
			got <- arrival{e.Seq, at}
		}
	}
	if t := c.Subscribe("dicewatch/t1/roll", 1, h); !t.WaitTimeout(10*time.Second) || t.Error() != nil {
		b.Fatal(t.Error())
	}
	j, err := journal.Open(b.TempDir(), journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := testConfig(br.URL(), b.TempDir())
	cfg.MaxInflight = 256
	p, err := NewPublisher(cfg, j, Birth{Version: "bench"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		<-done
		j.Close()
	})
	return j, p, got
}

// collect reads n arrivals and checks they are exactly seq 1..n in order
// (the bench journals only rolls, on a fresh journal). It returns the
// receipt time of each seq (index seq-1).
func collect(got <-chan arrival, n int, limit time.Duration) ([]time.Time, error) {
	at := make([]time.Time, n)
	timeout := time.NewTimer(limit)
	defer timeout.Stop()
	for i := 0; i < n; i++ {
		select {
		case a := <-got:
			if a.seq != uint64(i+1) {
				return nil, fmt.Errorf("subscriber got seq %d, want %d (out of order, duplicate or lost)", a.seq, i+1)
			}
			at[i] = a.at
		case <-timeout.C:
			return nil, fmt.Errorf("subscriber has %d of %d decisions after %v", i, n, limit)
		}
	}
	return at, nil
}

var benchBody = map[string]any{"verdict": "valid", "values": []int{3, 4}, "total": 7, "game": "bench"}

var benchBrokers = []struct {
	name string
	opts []mqtttest.Option
}{
	{"broker_no_persistence", []mqtttest.Option{mqtttest.WithoutPersistence()}},
	{"broker_autosave_every_change", nil},
}

func reportLatency(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(x, y int) bool { return lat[x] < lat[y] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
}

// BenchmarkJournalToSubscriber measures the time from the start of an
// append to a QoS 1 subscriber receiving that decision over loopback.
//
//   - one_at_a_time: Append (which returns after the fdatasync), then wait
//     for the subscriber before the next decision: the latency of a lone
//     decision on an idle table.
//   - paced_2000_per_s, paced_3000_per_s: AppendNoWait from one goroutine
//     on a fixed schedule of 2,000 or 3,000 decisions a second (a late
//     append does not shift the ones after it), the way the table loop
//     journals; latency under that sustained load, and the rate achieved
//     from first append to last receipt.
//
// Both include the fdatasync: the publisher only sees a record once it is
// durable. Reports median, p99 and max in ms. The paced cases run on the
// broker without persistence only: one that saves on every change is the
// bottleneck at this rate (see BenchmarkThroughput).
//
//	go test -run '^$' -bench JournalToSubscriber -benchtime 20000x ./mqtt
func BenchmarkJournalToSubscriber(b *testing.B) {
	for _, bc := range benchBrokers {
		b.Run("one_at_a_time/"+bc.name, func(b *testing.B) {
			j, p, got := benchRig(b, bc.opts...)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				rec, err := j.Append("roll", start, benchBody)
				if err != nil {
					b.Fatal(err)
				}
				p.Notify()
				a := <-got
				if a.seq != rec.Seq {
					b.Fatalf("subscriber got seq %d, want %d", a.seq, rec.Seq)
				}
				lat = append(lat, a.at.Sub(start))
			}
			b.StopTimer()
			reportLatency(b, lat)
		})
	}
	for _, rate := range []int{2000, 3000} {
		bc := benchBrokers[0]
		b.Run(fmt.Sprintf("paced_%d_per_s/%s", rate, bc.name), func(b *testing.B) {
			interval := time.Second / time.Duration(rate)
			j, p, got := benchRig(b, bc.opts...)
			sent := make([]time.Time, b.N)
			errs := make(chan error, 1)
			b.ResetTimer()
			start := time.Now()
			go func() {
				for i := 0; i < b.N; i++ {
					if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
						time.Sleep(d)
					}
					sent[i] = time.Now()
					rec, err := j.AppendNoWait("roll", sent[i], benchBody)
					if err != nil {
						errs <- err
						return
					}
					if rec.Seq != uint64(i+1) {
						errs <- fmt.Errorf("append %d got seq %d", i, rec.Seq)
						return
					}
					p.Notify()
				}
				errs <- nil
			}()
			at, err := collect(got, b.N, time.Duration(b.N)*interval+time.Minute)
			if err != nil {
				b.Fatalf("%v (journal durable to %d, broker acked to %d)", err, j.LastSeq(), p.Acked())
			}
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			lat := make([]time.Duration, b.N)
			for i := range lat {
				lat[i] = at[i].Sub(sent[i])
			}
			reportLatency(b, lat)
			b.ReportMetric(float64(b.N)/at[b.N-1].Sub(start).Seconds(), "decisions/s")
		})
	}
}

// BenchmarkThroughput journals b.N decisions as fast as the producers go
// while the publisher streams them to a QoS 1 subscriber, which must get
// every seq 1..b.N in order. decisions/s is b.N over the time from the
// first append to the last receipt; appends/s is the producers' own rate.
//
//   - 1_appender_nowait: one producer (the table goroutine's shape) using
//     AppendNoWait; the journal's syncer batches fdatasyncs behind it.
//
//   - 1_appender_wait: one producer using Append, one fdatasync each (for
//     comparison: what a caller that waits per record gets).
//
//   - 8_appenders_wait: eight producers using Append, sharing fdatasyncs.
//
//     go test -run '^$' -bench Throughput -benchtime 20000x ./mqtt
func BenchmarkThroughput(b *testing.B) {
	for _, bc := range []struct {
		name      string
		appenders int
		wait      bool
		opts      []mqtttest.Option
	}{
		{"1_appender_nowait/broker_no_persistence", 1, false, []mqtttest.Option{mqtttest.WithoutPersistence()}},
		{"1_appender_wait/broker_no_persistence", 1, true, []mqtttest.Option{mqtttest.WithoutPersistence()}},
		{"8_appenders_wait/broker_no_persistence", 8, true, []mqtttest.Option{mqtttest.WithoutPersistence()}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			j, p, got := benchRig(b, bc.opts...)
			b.ResetTimer()
			start := time.Now()
			errs := make(chan error, bc.appenders)
			finished := make([]time.Time, bc.appenders)
			for a := 0; a < bc.appenders; a++ {
				go func(a int) {
					var last journal.Record
					var err error
					for i := a; i < b.N; i += bc.appenders {
						if bc.wait {
							last, err = j.Append("roll", time.Now(), benchBody)
						} else {
							last, err = j.AppendNoWait("roll", time.Now(), benchBody)
						}
						if err != nil {
							errs <- err
							return
						}
						p.Notify()
					}
					err = j.WaitDurable(last.Seq)
					finished[a] = time.Now()
					errs <- err
				}(a)
			}
			at, err := collect(got, b.N, time.Duration(b.N)*time.Millisecond+time.Minute)
			if err != nil {
				if f, ferr := os.CreateTemp("", "bench-stall-*.txt"); ferr == nil {
					pprof.Lookup("goroutine").WriteTo(f, 2)
					f.Close()
					b.Logf("goroutines: %s", f.Name())
				}
				acked := p.Acked()
				p.Notify()
				time.Sleep(3 * time.Second)
				b.Fatalf("%v (journal durable to %d, broker acked to %d, %d after a Notify)", err, j.LastSeq(), acked, p.Acked())
			}
			var appended time.Duration
			for a := 0; a < bc.appenders; a++ {
				if err := <-errs; err != nil {
					b.Fatal(err)
				}
			}
			for _, f := range finished {
				appended = max(appended, f.Sub(start))
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/at[b.N-1].Sub(start).Seconds(), "decisions/s")
			b.ReportMetric(float64(b.N)/appended.Seconds(), "appends/s")
		})
	}
}
