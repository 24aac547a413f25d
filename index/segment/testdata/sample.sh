#!/bin/bash
set -euo pipefail

source ./lib/common.sh
. "$HOME/.profile"

# Prints usage.
usage() {
  echo "usage: $0 <name>"
}

function build {
  make -C "$1" all
}

usage
build src
