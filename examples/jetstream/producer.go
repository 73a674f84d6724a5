package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Workload describes the jobs the producer makes.
type Workload struct {
	Jobs      int           // how many, with ids 1..Jobs
	Work      time.Duration // a job takes between Work/2 and 3*Work/2, by id
	FailEvery int           // every FailEvery-th job fails on its first delivery (error and panic in turn); 0: none
	LongEvery int           // every LongEvery-th job takes Long instead; 0: none
	Long      time.Duration
}

// job returns job id of the workload. Durations vary with the id, not at
// random, so that two runs publish the same jobs.
func (w Workload) job(id int) Job {
	j := Job{ID: id, Work: w.Work/2 + time.Duration(id%11)*w.Work/10}
	if w.LongEvery > 0 && id%w.LongEvery == 0 {
		j.Work = w.Long
	}
	if w.FailEvery > 0 && id%w.FailEvery == 0 {
		j.Fail = "error"
		if (id/w.FailEvery)%2 == 0 {
			j.Fail = "panic"
		}
	}
	return j
}

// produce publishes the workload to the jobs stream and returns once the
// server has confirmed storing every job. Publishing is asynchronous (js
// bounds how many are unconfirmed at once; see connect); each job
// carries a message id unique to this run, so the server drops a job
// published twice within its duplicate window, while a second run's jobs are
// new jobs.
func produce(ctx context.Context, js jetstream.JetStream, q Queue, w Workload) error {
	run := nuid.Next()
	acks := make([]jetstream.PubAckFuture, 0, w.Jobs)
	for id := 1; id <= w.Jobs; id++ {
		data, err := json.Marshal(w.job(id))
		if err != nil {
			return err
		}
		msg := &nats.Msg{Subject: q.jobSubject(id), Data: data, Header: nats.Header{}}
		msg.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("%s-%d", run, id))
		// With 256 publishes unconfirmed (see connect), the next one waits
		// for room, up to 30s on a slow server, instead of failing at the
		// default 200ms.
		ack, err := js.PublishMsgAsync(msg, jetstream.WithStallWait(30*time.Second))
		if err != nil {
			return fmt.Errorf("publish job %d: %w", id, err)
		}
		acks = append(acks, ack)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	for i, ack := range acks {
		select {
		case <-ack.Ok():
		case err := <-ack.Err():
			return fmt.Errorf("publish job %d: %w", i+1, err)
		}
	}
	return nil
}
