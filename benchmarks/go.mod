module github.com/e62cffed/ants/benchmarks

go 1.24.0

require (
	github.com/alitto/pond/v2 v2.7.1
	github.com/e62cffed/ants v1.0.0
	github.com/e62cffed/ants/examples/httpserver v0.0.0-00010101000000-000000000000
	github.com/e62cffed/ants/prometheus v1.0.0
	github.com/gammazero/workerpool v1.2.1
	github.com/go-pkgz/pool v0.9.0
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/prometheus/client_golang v1.22.0
	github.com/schollz/progressbar/v3 v3.18.0
	github.com/sourcegraph/conc v0.3.0
	github.com/tsenart/vegeta/v12 v12.13.0
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.19.0
	gonum.org/v1/gonum v0.15.1
	gonum.org/v1/plot v0.15.2
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/influxdata/tdigest v0.0.1 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.1 // indirect
	github.com/prometheus/common v0.62.0 // indirect
	github.com/prometheus/procfs v0.15.1 // indirect
	github.com/rs/dnscache v0.0.0-20230804202142-fc85eb664529 // indirect
	golang.org/x/net v0.33.0 // indirect
	google.golang.org/protobuf v1.36.5 // indirect
)

require (
	codeberg.org/go-fonts/liberation v0.4.1 // indirect
	codeberg.org/go-latex/latex v0.0.1 // indirect
	codeberg.org/go-pdf/fpdf v0.10.0 // indirect
	git.sr.ht/~sbinet/gg v0.6.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/gammazero/deque v1.2.1 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/image v0.24.0 // indirect
	golang.org/x/sys v0.30.0 // indirect
	golang.org/x/term v0.28.0 // indirect
	golang.org/x/text v0.22.0 // indirect
	golang.org/x/time v0.14.0 // indirect
)

replace (
	github.com/e62cffed/ants => ..
	github.com/e62cffed/ants/examples/httpserver => ../examples/httpserver
	github.com/e62cffed/ants/prometheus => ../prometheus
)
