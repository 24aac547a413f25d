#!/usr/bin/env bash
set -euo pipefail

# Where releases go.
TARGET=/srv/app
export PATH_EXTRA=/opt/bin
readonly RETRIES=3
declare -r TIMEOUT=30
declare -a HOSTS

deploy() {
  local host=$1
  COUNT=1
}

TARGET=/srv/other
