// Package nominicore turns off gosnowflake's "minicore" before gosnowflake
// initializes. Left on, every process that links gosnowflake — every idemc
// invocation, even `idemc compile` — writes a shared library into a new
// temporary folder at start-up and loads it (a short-lived process can exit
// before removing it). It only adds client-environment telemetry.
//
// Go initializes a package before any package that sorts after it by
// import path among those ready, and this package depends only on os, so it
// runs before github.com/snowflakedb/gosnowflake. SF_DISABLE_MINICORE set
// by the user is left as it is.
package nominicore

import "os"

func init() {
	if _, set := os.LookupEnv("SF_DISABLE_MINICORE"); !set {
		_ = os.Setenv("SF_DISABLE_MINICORE", "true")
	}
}
