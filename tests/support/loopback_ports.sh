# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash
# Sourced by the scripts that start servers on loopback ports.
# The kernel gives outgoing connections local ports from ip_local_port_range, and a busy suite leaves
# thousands of them in TIME_WAIT: a server told to listen on one of them fails with "Address already
# in use". So servers take ports below that range, leaving room for a cluster bus port 10000 higher.

# port_in_use PORT: something listens on it.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# random_quiet_port: a random port p with p and p+10000 both below the ephemeral range.
random_quiet_port() {
  local ephemeral_low span
  read -r ephemeral_low _ </proc/sys/net/ipv4/ip_local_port_range
  span=$((ephemeral_low - 10000 - 10000 - 200))
  if ((span < 1000)); then span=1000; fi # an unusual range: nothing better to pick from
  echo $((10000 + RANDOM % span))
}
