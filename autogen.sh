#!/bin/sh
# Regenerate the build system (configure, Makefile.in, libtool files).
set -e
cd "$(dirname "$0")"
mkdir -p m4 config
autoreconf -fi
