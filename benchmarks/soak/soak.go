package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants/examples/httpserver/service"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	vegeta "github.com/tsenart/vegeta/v12/lib"
	"gonum.org/v1/gonum/stat"
)

// config is one soak run.
type config struct {
	Variant    string        `json:"variant"`
	Duration   time.Duration `json:"duration"`    // of the attack
	WarmUp     time.Duration `json:"warm_up"`     // the flatness check's reference is taken just after it
	Rate       int           `json:"rate"`        // requests offered per second
	PoolSize   int           `json:"pool_size"`   // the largest size the tuner sets
	Queue      int           `json:"queue"`       // task buffer (variants that have one)
	Work       time.Duration `json:"work"`        // each request's work: a sleep, as a call to a database
	TuneEvery  time.Duration `json:"tune_every"`  // the tuner's period
	ChurnEvery time.Duration `json:"churn_every"` // the side pool's release/reboot period
	SideSize   int           `json:"side_size"`   // side pool size
	Workers    int           `json:"workers"`     // vegeta's workers: fixed, so its goroutines do not drift
	Timeout    time.Duration `json:"timeout"`     // a request's client-side limit

	// The every-feature variant's (features.go); the others ignore them.
	Levels     int           `json:"levels,omitempty"`      // priority levels of the requests
	PauseEvery time.Duration `json:"pause_every,omitempty"` // a maintenance window (Pause, Resume) this often
	PauseFor   time.Duration `json:"pause_for,omitempty"`   // for this long
	RateEvery  time.Duration `json:"rate_every,omitempty"`  // SetRateLimit this often
}

// capacity is the requests per second a pool of size workers can serve.
func (c config) capacity(size int) float64 { return float64(size) / c.Work.Seconds() }

// tuneSizes is the tuner's cycle: full, half, quarter, half, ...
func (c config) tuneSizes() []int {
	return []int{c.PoolSize, max(1, c.PoolSize/2), max(1, c.PoolSize/4), max(1, c.PoolSize/2)}
}

// second is what one second of the soak looked like: the answers read in
// it and a sample taken at its end.
type second struct {
	T          int       `json:"t"` // seconds since the attack began
	Accepted   int       `json:"accepted"`
	Shed       int       `json:"shed"`
	Errors     int       `json:"errors"`
	P50ms      float64   `json:"p50_ms"` // of the accepted answers read in this second
	P99ms      float64   `json:"p99_ms"`
	Maxms      float64   `json:"max_ms"`
	ShedP99ms  float64   `json:"shed_p99_ms"`
	LevelP99ms []float64 `json:"level_p99_ms,omitempty"` // of the accepted answers of each priority level
	Paused     bool      `json:"paused,omitempty"`       // the work pool, at the sample
	RSSMiB     float64   `json:"rss_mib"`
	HeapMiB    float64   `json:"heap_mib"`
	Goroutines int       `json:"goroutines"`
	Cap        int       `json:"cap"` // the work pool's Stats at the sample
	Running    int       `json:"running"`
	Queued     int       `json:"queued"`
}

// latencies summarises a set of latencies, in milliseconds.
type latencies struct {
	N     uint64  `json:"n"`
	P50ms float64 `json:"p50_ms"`
	P99ms float64 `json:"p99_ms"`
	Maxms float64 `json:"max_ms"`
}

func summarize(m *vegeta.Metrics) latencies {
	m.Close()
	return latencies{N: m.Requests, P50ms: ms(m.Latencies.P50), P99ms: ms(m.Latencies.P99), Maxms: ms(m.Latencies.Max)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// level is the process's size over a window of samples (medians).
type level struct {
	RSSMiB     float64 `json:"rss_mib"`
	HeapMiB    float64 `json:"heap_mib"`
	Goroutines float64 `json:"goroutines"`
}

// report is one soak run, all figures in it.
type report struct {
	Config  config   `json:"config"`
	Note    string   `json:"note"`
	Seconds []second `json:"seconds"`

	Sent      int       `json:"sent"`
	Accepted  latencies `json:"accepted"` // 200s
	Shed      latencies `json:"shed"`     // 503s
	Errors    int       `json:"errors"`   // anything else
	ErrorText []string  `json:"error_text,omitempty"`

	Levels       []latencies  `json:"levels,omitempty"` // accepted, per priority level
	Pauses       int          `json:"pauses,omitempty"`
	RateChanges  int          `json:"rate_changes,omitempty"`
	SideBroken   int          `json:"side_broken,omitempty"` // side-pool releases that returned nil before every accepted task ran
	FinalRelease finalRelease `json:"final_release"`         // the every-feature variant's release at the end

	Tunes        int `json:"tunes"`
	SideCycles   int `json:"side_cycles"`
	SideAccepted int `json:"side_accepted"` // side-pool submits that returned nil
	SideRan      int `json:"side_ran"`
	Scrapes      int `json:"scrapes"` // GET /metrics during the run
	ScrapeErrors int `json:"scrape_errors"`

	Violations         violations `json:"violations"`
	Warm               level      `json:"warm"` // just after warm-up
	End                level      `json:"end"`  // the last window
	Peak               level      `json:"peak"`
	Window             int        `json:"window_s"`
	LeftoverGoroutines int        `json:"leftover_goroutines"` // after shutdown, beyond those before the run
	ServeErr           string     `json:"serve_err,omitempty"`
	Checks             []check    `json:"checks"`
}

// soak runs one soak and returns its report; the checks are filled in by
// evaluate. progress, if not nil, gets a line every tick of 10 s.
func soak(cfg config, progress func(t int, s second)) (*report, error) {
	v, err := findVariant(cfg.Variant)
	if err != nil {
		return nil, err
	}
	baseline := runtime.NumGoroutine()
	work, err := v.newWork(cfg.PoolSize, cfg.Queue)
	if err != nil {
		return nil, err
	}
	var feat *counted // the every-feature variant's work pool, counted
	if v.features {
		feat = &counted{featurePool: work.(featurePool)}
		work = feat
	}
	var side sidePool
	if v.newSide != nil {
		if side, err = v.newSide(cfg.SideSize); err != nil {
			_ = work.ReleaseContext(context.Background())
			return nil, err
		}
	}
	rep := &report{Config: cfg, Note: v.note}
	led := newLedger()

	// The service, as command httpserver builds it, on a loopback port.
	reg := prometheus.NewRegistry()
	reg.MustRegister(antsprom.NewCollector("work", work))
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var h http.Handler = service.NewHandler(service.Config{
		Pool: work,
		Work: func(ctx context.Context, id string) {
			led.ran(id)
			service.Sleep(ctx, cfg.Work)
		},
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		Logger:  quiet,
	})
	path := "/work"
	if feat != nil {
		h, path = withLevels(h, cfg.Levels), "/work/wait"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = work.ReleaseContext(context.Background())
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	served := make(chan error, 1)
	go func() { served <- service.Serve(serveCtx, srv, ln, work, time.Minute, quiet) }() // waited for below

	// The tuner and the side pool's churner, until the attack ends.
	bgCtx, stopBackground := context.WithCancel(context.Background())
	var bg sync.WaitGroup
	var tunes, cycles, sideAccepted atomic.Int64
	var sideRan, pauses, rateChanges, sideBroken atomic.Int64
	if v.tunes {
		bg.Add(1)
		go func() { defer bg.Done(); tune(bgCtx, cfg, work, &tunes) }() // exits at stopBackground
	}
	if side != nil {
		bg.Add(1)
		go func() { // exits at stopBackground
			defer bg.Done()
			churn(bgCtx, cfg, side, &cycles, &sideAccepted, &sideRan, &sideBroken)
		}()
	}
	if feat != nil {
		bg.Add(2)
		go func() { defer bg.Done(); maintain(bgCtx, cfg, feat, &pauses) }()  // exits at stopBackground
		go func() { defer bg.Done(); pace(bgCtx, cfg, feat, &rateChanges) }() // exits at stopBackground
	}

	// The load: vegeta at a constant rate, each request with its own id.
	client := &http.Client{
		Timeout: cfg.Timeout,
		Transport: &http.Transport{
			// At most one connection per vegeta worker, so the goroutines
			// that connections cost are bounded (three each: the client's
			// read and write loops and the server's), whatever the load.
			MaxConnsPerHost:     cfg.Workers,
			MaxIdleConnsPerHost: cfg.Workers,
			IdleConnTimeout:     10 * time.Second,
		},
	}
	var nextID atomic.Uint64
	targeter := func(t *vegeta.Target) error {
		t.Method = http.MethodGet
		t.URL = base + path + "?id=" + strconv.FormatUint(nextID.Add(1), 10)
		return nil
	}
	attacker := vegeta.NewAttacker(vegeta.Client(client),
		vegeta.Workers(uint64(cfg.Workers)), vegeta.MaxWorkers(uint64(cfg.Workers)))
	results := attacker.Attack(targeter, vegeta.ConstantPacer{Freq: cfg.Rate, Per: time.Second}, cfg.Duration, cfg.Variant)

	collect(rep, results, led, work, client, base, cfg.Levels*boolInt(feat != nil), progress)

	stopBackground()
	bg.Wait()
	stopServing()
	if err := <-served; err != nil {
		rep.ServeErr = err.Error()
	}
	if side != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := side.ReleaseContext(ctx)
		cancel()
		if err != nil && rep.ServeErr == "" {
			rep.ServeErr = "side pool: " + err.Error()
		}
	}
	client.CloseIdleConnections()
	rep.LeftoverGoroutines = settle(baseline)
	rep.Tunes, rep.SideCycles = int(tunes.Load()), int(cycles.Load())
	rep.SideAccepted, rep.SideRan = int(sideAccepted.Load()), int(sideRan.Load())
	rep.Pauses, rep.RateChanges, rep.SideBroken = int(pauses.Load()), int(rateChanges.Load()), int(sideBroken.Load())
	if feat != nil {
		rep.FinalRelease = feat.final
	}
	rep.Violations = led.finish()
	levels(rep)
	return rep, nil
}

// collect reads every result until the attack ends, checks each against
// the ledger, and closes a second of figures at every tick. It keeps the
// latencies of the current second only, so its memory stays flat.
// With levels > 0 it keeps the latencies of each priority level too.
func collect(rep *report, results <-chan *vegeta.Result, led *ledger, work workPool, client *http.Client, base string,
	levels int, progress func(int, second)) {
	var accepted, shed vegeta.Metrics
	perLevel := make(levelMetrics, levels)
	var cur second
	var lat, shedLat []float64            // this second's, in ms; reused
	levelLat := make([][]float64, levels) // this second's, per level
	mem := newMemSampler()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	scrapeEvery := 5

	for results != nil {
		select {
		case r, ok := <-results:
			if !ok {
				results = nil
				break
			}
			rep.Sent++
			id, okID := idOf(r.URL)
			switch {
			case !okID:
				led.badAnswer()
			case r.Code == http.StatusOK:
				led.answered(id, true)
				accepted.Add(r)
				cur.Accepted++
				lat = append(lat, ms(r.Latency))
				if levels > 0 {
					perLevel.add(id, r)
					l := levelOf(id, levels)
					levelLat[l] = append(levelLat[l], ms(r.Latency))
				}
			case r.Code == http.StatusServiceUnavailable:
				led.answered(id, false)
				shed.Add(r)
				cur.Shed++
				shedLat = append(shedLat, ms(r.Latency))
			default:
				led.lost(id)
				cur.Errors++
				rep.Errors++
				if len(rep.ErrorText) < 5 {
					rep.ErrorText = append(rep.ErrorText, fmt.Sprintf("%d %s", r.Code, r.Error))
				}
			}
		case now := <-tick.C:
			cur.T = int(now.Sub(start).Round(time.Second) / time.Second)
			cur.P50ms, cur.P99ms, cur.Maxms = quantiles(lat)
			_, cur.ShedP99ms, _ = quantiles(shedLat)
			heap, g, rss := mem.read()
			cur.HeapMiB, cur.Goroutines, cur.RSSMiB = mib(heap), g, mib(rss)
			s := work.Stats()
			cur.Cap, cur.Running, cur.Queued, cur.Paused = s.Cap, s.Running, s.Queued, s.Paused
			for i := range levelLat {
				_, p99, _ := quantiles(levelLat[i])
				cur.LevelP99ms = append(cur.LevelP99ms, p99)
				levelLat[i] = levelLat[i][:0]
			}
			rep.Seconds = append(rep.Seconds, cur)
			if progress != nil {
				progress(cur.T, cur)
			}
			if cur.T%scrapeEvery == 0 {
				rep.Scrapes++
				if !scrape(client, base) {
					rep.ScrapeErrors++
				}
			}
			cur, lat, shedLat = second{}, lat[:0], shedLat[:0]
		}
	}
	// The answers read after the last tick are in the totals only.
	rep.Accepted, rep.Shed = summarize(&accepted), summarize(&shed)
	rep.Levels = perLevel.summaries()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scrape reads /metrics as Prometheus would and reports whether it got the
// pool's series.
func scrape(client *http.Client, base string) bool {
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return err == nil && resp.StatusCode == http.StatusOK && strings.Contains(string(b), "ants_pool_submitted_tasks_total")
}

// idOf reads the id from a target URL made by the soak's targeter.
func idOf(url string) (uint64, bool) {
	i := strings.LastIndexByte(url, '=')
	if i < 0 {
		return 0, false
	}
	id, err := strconv.ParseUint(url[i+1:], 10, 64)
	return id, err == nil
}

// quantiles returns the median, 99th percentile and maximum of xs, sorting
// xs; all zero if it is empty.
func quantiles(xs []float64) (p50, p99, maxV float64) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	sort.Float64s(xs)
	return stat.Quantile(0.5, stat.Empirical, xs, nil), stat.Quantile(0.99, stat.Empirical, xs, nil), xs[len(xs)-1]
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// tune cycles the work pool through cfg.tuneSizes every cfg.TuneEvery.
func tune(ctx context.Context, cfg config, p workPool, n *atomic.Int64) {
	sizes := cfg.tuneSizes()
	t := time.NewTicker(cfg.TuneEvery)
	defer t.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			p.Tune(cfg.PoolSize)
			return
		case <-t.C:
			p.Tune(sizes[i%len(sizes)])
			n.Add(1)
		}
	}
}

// churn, every cfg.ChurnEvery, gives the side pool a few short tasks, then
// releases it, alternately without waiting (Release) and waiting for its
// workers (ReleaseContext), and reboots it. A side pool with a rate limit
// gets a new one during each wait (releaseRaced), and broken counts the
// waits that returned nil before every accepted task had run.
func churn(ctx context.Context, cfg config, p sidePool, cycles, accepted, ran, broken *atomic.Int64) {
	t := time.NewTicker(cfg.ChurnEvery)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for j := 0; j < 2*cfg.SideSize; j++ {
			if p.Submit(func() { time.Sleep(time.Millisecond); ran.Add(1) }) == nil {
				accepted.Add(1)
			}
		}
		fs, raced := p.(featureSide)
		switch {
		case i%2 == 0:
			p.Release()
		case raced:
			if !releaseRaced(ctx, fs, cfg.SideSize, i/2, accepted, ran) {
				broken.Add(1)
			}
		default:
			rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_ = p.ReleaseContext(rctx)
			cancel()
		}
		p.Reboot()
		cycles.Add(1)
	}
}

// settle waits up to 10 s for the goroutine count to fall back to
// baseline and returns how many goroutines are left beyond it. Closed
// connections' goroutines exit a moment after the close.
func settle(baseline int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine() - baseline
		if n <= 0 || time.Now().After(deadline) {
			return max(n, 0)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// levels fills in the warm, end and peak levels: medians over a window
// just after warm-up and over the last window.
func levels(rep *report) {
	ss := rep.Seconds
	win := int(min(max(rep.Config.Duration/20, 5*time.Second), time.Minute) / time.Second)
	rep.Window = win
	warm := int(rep.Config.WarmUp / time.Second)
	if len(ss) < warm+2*win {
		return
	}
	rep.Warm = median(ss[warm : warm+win])
	rep.End = median(ss[len(ss)-win:])
	for _, s := range ss {
		rep.Peak.RSSMiB = max(rep.Peak.RSSMiB, s.RSSMiB)
		rep.Peak.HeapMiB = max(rep.Peak.HeapMiB, s.HeapMiB)
		rep.Peak.Goroutines = max(rep.Peak.Goroutines, float64(s.Goroutines))
	}
}

func median(ss []second) level {
	pick := func(get func(second) float64) float64 {
		xs := make([]float64, len(ss))
		for i, s := range ss {
			xs[i] = get(s)
		}
		sort.Float64s(xs)
		return stat.Quantile(0.5, stat.Empirical, xs, nil)
	}
	return level{
		RSSMiB:     pick(func(s second) float64 { return s.RSSMiB }),
		HeapMiB:    pick(func(s second) float64 { return s.HeapMiB }),
		Goroutines: pick(func(s second) float64 { return float64(s.Goroutines) }),
	}
}
