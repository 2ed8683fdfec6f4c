package mqtt

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"

	"github.com/dicewatch/dicewatch/journal"
	"github.com/dicewatch/dicewatch/mqtt/mqtttest"
)

// benchRig is a broker, a running publisher on a fresh journal, and a
// subscriber that reports each decision's seq on a channel.
func benchRig(b *testing.B, opts ...mqtttest.Option) (*journal.Journal, *Publisher, <-chan uint64) {
	b.Helper()
	br := mqtttest.StartBroker(b, opts...)
	seqs := make(chan uint64, 1<<20)
	o := paho.NewClientOptions().AddBroker(br.URL()).SetClientID("bench-sub").SetCleanSession(true).SetOrderMatters(true)
	c := paho.NewClient(o)
	if t := c.Connect(); !t.WaitTimeout(10*time.Second) || t.Error() != nil {
		b.Fatal(t.Error())
	}
	b.Cleanup(func() { c.Disconnect(100) })
	h := func(_ paho.Client, m paho.Message) {
		var e struct {
			Seq uint64 `json:"seq"`
		}
		if json.Unmarshal(m.Payload(), &e) == nil && e.Seq > 0 {
			seqs <- e.Seq
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
	return j, p, seqs
}

var benchBody = map[string]any{"verdict": "valid", "values": []int{3, 4}, "total": 7, "game": "bench"}

// BenchmarkJournalToSubscriber measures the time from the start of Append
// (so it includes the fsync) to a QoS 1 subscriber receiving that decision
// over loopback, one decision at a time. Reports median and p99 in ms.
//
//	go test -run '^$' -bench JournalToSubscriber -benchtime 2000x ./mqtt
func BenchmarkJournalToSubscriber(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []mqtttest.Option
	}{
		{"broker_no_persistence", []mqtttest.Option{mqtttest.WithoutPersistence()}},
		{"broker_autosave_every_change", nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			j, p, seqs := benchRig(b, bc.opts...)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				rec, err := j.Append("roll", start, benchBody)
				if err != nil {
					b.Fatal(err)
				}
				p.Notify()
				for s := range seqs {
					if s == rec.Seq {
						break
					}
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(lat, func(x, y int) bool { return lat[x] < lat[y] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}

// BenchmarkThroughput journals b.N decisions (each fsync'd) from one or
// more appenders while the publisher streams them, and reports decisions
// per second from the first Append until the subscriber has them all.
// Concurrent appenders share fsyncs (journal group commit).
//
//	go test -run '^$' -bench Throughput -benchtime 20000x ./mqtt
func BenchmarkThroughput(b *testing.B) {
	for _, bc := range []struct {
		name      string
		appenders int
		opts      []mqtttest.Option
	}{
		{"1_appender/broker_no_persistence", 1, []mqtttest.Option{mqtttest.WithoutPersistence()}},
		{"8_appenders/broker_no_persistence", 8, []mqtttest.Option{mqtttest.WithoutPersistence()}},
		{"8_appenders/broker_autosave_every_change", 8, nil},
	} {
		b.Run(bc.name, func(b *testing.B) {
			j, p, seqs := benchRig(b, bc.opts...)
			b.ResetTimer()
			start := time.Now()
			got := make(chan time.Duration, 1)
			go func() {
				n := 0
				for range seqs {
					if n++; n == b.N {
						got <- time.Since(start)
						return
					}
				}
			}()
			errs := make(chan error, bc.appenders)
			for a := 0; a < bc.appenders; a++ {
				go func(a int) {
					for i := a; i < b.N; i += bc.appenders {
						if _, err := j.Append("roll", time.Now(), benchBody); err != nil {
							errs <- err
							return
						}
						p.Notify()
					}
					errs <- nil
				}(a)
			}
			for a := 0; a < bc.appenders; a++ {
				if err := <-errs; err != nil {
					b.Fatal(err)
				}
			}
			appended := time.Since(start)
			d := <-got
			b.StopTimer()
			b.ReportMetric(float64(b.N)/d.Seconds(), "decisions/s")
			b.ReportMetric(float64(b.N)/appended.Seconds(), "appends/s")
		})
	}
}
