module github.com/e62cffed/ants/prometheus

go 1.22

require (
	github.com/e62cffed/ants v1.0.0
	github.com/prometheus/client_golang v1.22.0
	github.com/prometheus/client_model v0.6.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/common v0.62.0 // indirect
	github.com/prometheus/procfs v0.15.1 // indirect
	golang.org/x/sys v0.30.0 // indirect
	google.golang.org/protobuf v1.36.5 // indirect
)

// The replace serves this repository: its builds and tests use the root
// module of the same checkout. A replace in a dependency's go.mod is ignored,
// so users get the root at the version required above (see RELEASING.md).
replace github.com/e62cffed/ants => ..
