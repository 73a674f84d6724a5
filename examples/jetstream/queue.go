package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Queue names the two streams and the consumer that every role shares. The
// producer, the workers and any checker must agree on them, so they all
// derive them from one prefix (the -prefix flag).
type Queue struct {
	Prefix   string        // stream names are Prefix_JOBS and Prefix_RESULTS
	Replicas int           // stream replicas: 1 here, 3 on a real cluster
	AckWait  time.Duration // how long a delivered job may go unacknowledged before redelivery
}

// JobsStream is the work-queue stream: a job is deleted once acknowledged.
func (q Queue) JobsStream() string { return q.Prefix + "_JOBS" }

// ResultsStream keeps one record per completed attempt, keyed by job id in
// the subject, so a checker in another process can count them.
func (q Queue) ResultsStream() string { return q.Prefix + "_RESULTS" }

// Consumer is the one durable pull consumer all workers share: each job goes
// to exactly one of them at a time.
func (q Queue) Consumer() string { return "workers" }

func (q Queue) jobSubject(id int) string {
	return fmt.Sprintf("%s.jobs.%d", strings.ToLower(q.Prefix), id)
}

func (q Queue) resultSubject(id int) string {
	return fmt.Sprintf("%s.results.%d", strings.ToLower(q.Prefix), id)
}

func (q Queue) resultsFilter() string { return strings.ToLower(q.Prefix) + ".results.>" }

// Setup creates or updates both streams and the consumer; every role calls
// it, so any of them may start first. The configuration is the same from
// every caller, so concurrent calls agree.
//
// MaxDeliver is unlimited: a job is retried until some worker finishes it,
// which is the point. AckWait bounds how long a crashed worker's jobs stay
// invisible; workers keep slow jobs alive with in-progress acks, so it need
// not exceed the longest job.
func (q Queue) Setup(ctx context.Context, js jetstream.JetStream) (jetstream.Consumer, error) {
	replicas := max(q.Replicas, 1)
	lp := strings.ToLower(q.Prefix)
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:      q.JobsStream(),
		Subjects:  []string{lp + ".jobs.>"},
		Retention: jetstream.WorkQueuePolicy,
		Storage:   jetstream.FileStorage,
		Replicas:  replicas,
	}); err != nil {
		return nil, fmt.Errorf("jobs stream: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:     q.ResultsStream(),
		Subjects: []string{lp + ".results.>"},
		Storage:  jetstream.FileStorage,
		Replicas: replicas,
	}); err != nil {
		return nil, fmt.Errorf("results stream: %w", err)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, q.JobsStream(), jetstream.ConsumerConfig{
		Durable:    q.Consumer(),
		AckPolicy:  jetstream.AckExplicitPolicy,
		AckWait:    q.AckWait,
		MaxDeliver: -1,
		// Room for every worker's pool and buffer; the workers bound
		// themselves, this only bounds a misconfigured fleet.
		MaxAckPending: 10_000,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer: %w", err)
	}
	return cons, nil
}

// Job is what the producer publishes. Work is how long the task takes; Fail,
// "error" or "panic", makes the first delivery of the job fail that way so
// that its retry can be seen.
type Job struct {
	ID   int           `json:"id"`
	Work time.Duration `json:"work"`
	Fail string        `json:"fail,omitempty"`
}

// Result is what a worker records in the results stream for each job it
// finished, before it acknowledges the job. A job with more than one Result
// was run more than once (a duplicate, after a crash between the record and
// the acknowledgement).
type Result struct {
	Job        int       `json:"job"`
	Worker     string    `json:"worker"`
	Delivered  uint64    `json:"delivered"`   // which delivery of the job this was (1 = first)
	MaxRunning int64     `json:"max_running"` // the worker's most tasks running at once, so far
	MaxHeld    int64     `json:"max_held"`    // the worker's most jobs fetched and not yet acknowledged, so far
	Capacity   int       `json:"capacity"`    // the worker's pool capacity
	Buffer     int       `json:"buffer"`      // the worker's task buffer size
	At         time.Time `json:"at"`          // when the worker recorded it
}

// ReadResults reads every record of the results stream, in order, with an
// ephemeral ordered consumer. It costs one round trip per 1000 records.
func (q Queue) ReadResults(ctx context.Context, js jetstream.JetStream) ([]Result, error) {
	stream, err := js.Stream(ctx, q.ResultsStream())
	if err != nil {
		return nil, err
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return nil, err
	}
	total := int(info.State.Msgs)
	results := make([]Result, 0, total)
	if total == 0 {
		return results, nil
	}
	oc, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		return nil, err
	}
	for len(results) < total {
		batch, err := oc.Fetch(min(1000, total-len(results)), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, err
		}
		got := 0
		for msg := range batch.Messages() {
			var r Result
			if err := json.Unmarshal(msg.Data(), &r); err != nil {
				return nil, fmt.Errorf("result %s: %w", msg.Subject(), err)
			}
			results = append(results, r)
			got++
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
		if got == 0 {
			return nil, fmt.Errorf("results stream: read %d of %d records, then nothing", len(results), total)
		}
	}
	return results, nil
}

// Purge empties both streams; the demo starts with it so that runs do not
// add up.
func (q Queue) Purge(ctx context.Context, js jetstream.JetStream) error {
	for _, name := range []string{q.JobsStream(), q.ResultsStream()} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return err
		}
		if err := s.Purge(ctx); err != nil {
			return fmt.Errorf("purge %s: %w", name, err)
		}
	}
	return nil
}

// jobIDFromSubject parses the id at the end of a job or result subject.
func jobIDFromSubject(subject string) (int, error) {
	i := strings.LastIndexByte(subject, '.')
	return strconv.Atoi(subject[i+1:])
}
