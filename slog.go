package ants

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"
)

// NewSlogLogger returns a Logger, for WithLogger, that writes the pool's
// messages to l (nil: slog.Default(), looked up at each message). A task's
// panic becomes one record at level Error, "worker exits from panic", with
// the attributes "panic" (the value) and "stack" (a string); every other
// message, a record at level Info with its text. Records carry the source
// position of the pool code that logged. It is safe for concurrent use, as l
// is.
func NewSlogLogger(l *slog.Logger) Logger {
	return slogLogger{l: l}
}

// panicLogger is a Logger that reports a task's panic as one record of its
// own rather than through Printf; logTaskPanic uses it when it can.
type panicLogger interface {
	logPanic(value any, stack []byte)
}

// logTaskPanic reports the panic of a task to l: as one record if l is a
// panicLogger, else as the message ants prints, value and stack on lines of
// their own.
func logTaskPanic(l Logger, value any, stack []byte) {
	if pl, ok := l.(panicLogger); ok {
		pl.logPanic(value, stack)
		return
	}
	l.Printf("worker exits from panic: %v\n%s", value, stack)
}

// slogLogger is the Logger of NewSlogLogger; l nil means slog.Default().
type slogLogger struct {
	l *slog.Logger
}

func (s slogLogger) logger() *slog.Logger {
	if s.l != nil {
		return s.l
	}
	return slog.Default()
}

// Printf logs the formatted message at level Info.
func (s slogLogger) Printf(format string, args ...any) {
	l := s.logger()
	ctx := context.Background()
	if !l.Enabled(ctx, slog.LevelInfo) {
		return // formatting skipped, as slog does for a disabled level
	}
	msg := strings.TrimSuffix(fmt.Sprintf(format, args...), "\n")
	s.log(ctx, l, slog.LevelInfo, msg, 1) // the source is Printf's caller
}

// logPanic logs the panic of a task at level Error, with its value and
// stack as attributes.
func (s slogLogger) logPanic(value any, stack []byte) {
	l := s.logger()
	ctx := context.Background()
	if !l.Enabled(ctx, slog.LevelError) {
		return
	}
	// The source is the pool code that called logTaskPanic.
	s.log(ctx, l, slog.LevelError, "worker exits from panic", 2,
		slog.Any("panic", value), slog.String("stack", string(stack)))
}

// log hands one record to l's handler, in the way the log/slog package
// documents for wrappers ("Wrapping output methods"). Its source position
// is that of the caller of the frame depth levels above log: depth 1 is
// the caller of log's caller.
func (slogLogger) log(ctx context.Context, l *slog.Logger, level slog.Level, msg string, depth int, attrs ...slog.Attr) {
	var pcs [1]uintptr
	runtime.Callers(depth+2, pcs[:]) // skip runtime.Callers and log
	r := slog.NewRecord(time.Now(), level, msg, pcs[0])
	r.AddAttrs(attrs...)
	_ = l.Handler().Handle(ctx, r)
}
