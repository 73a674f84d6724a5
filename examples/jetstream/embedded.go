package main

import (
	"errors"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Embedded is a NATS server with JetStream running inside this process,
// listening on 127.0.0.1 only, with its store in a temporary directory. It
// is for the self-contained demo and the tests; workers in production point
// at a real cluster instead (-url).
type Embedded struct {
	srv *server.Server
	dir string // removed by Shutdown unless the caller gave it
}

// StartEmbedded starts a server on 127.0.0.1:port (0 picks a free port)
// storing in dir, or in a new temporary directory if dir is "". It returns
// once the server accepts connections.
func StartEmbedded(dir string, port int) (*Embedded, error) {
	e := &Embedded{}
	if dir == "" {
		d, err := os.MkdirTemp("", "ants-jetstream-*")
		if err != nil {
			return nil, err
		}
		dir, e.dir = d, d
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	srv, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  dir,
		NoLog:     true,
		NoSigs:    true, // the host process owns its signals
		// No HTTP monitoring, no cluster: nothing listens but the client port.
	})
	if err != nil {
		e.removeDir()
		return nil, err
	}
	e.srv = srv
	go srv.Start() // Start returns once the server runs; Shutdown stops what it started
	if !srv.ReadyForConnections(10 * time.Second) {
		e.Shutdown()
		return nil, errors.New("embedded NATS server not ready within 10s")
	}
	return e, nil
}

// URL is the address clients connect to.
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Shutdown stops the server, waits until all its goroutines are gone, and
// removes the temporary store.
func (e *Embedded) Shutdown() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	e.removeDir()
}

func (e *Embedded) removeDir() {
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
	}
}
