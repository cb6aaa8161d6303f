// Package uevent receives kobject uevents, the messages the Linux kernel
// broadcasts on NETLINK_KOBJECT_UEVENT when a device or module comes or goes
// ("add@/module/nf_tables" and KEY=VALUE pairs). Listen opens a Monitor;
// Read returns one Event at a time; Close stops it. Parse decodes one
// message, for callers that have their own socket.
//
// The socket is a small unexported seam, so that tests run the Monitor
// over a fake one; package kallsyms/live uses this package to reload
// symbol tables as modules come and go (Symbolizer.Watch).
//
// Off Linux, Listen returns an error that wraps errors.ErrUnsupported.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// Read must not be called from two goroutines at once; Close may be called
// at any time from any goroutine, and makes a blocked Read return
// ErrClosed. Events are values.
//
// # Security
//
// Any process with CAP_NET_ADMIN in the network namespace can send
// uevents. A Monitor accepts only messages whose sender port id is 0 (the
// kernel) unless told to trust other port ids (Options.TrustPortIDs, for
// tests): others are returned with ErrUntrustedSender and must be ignored.
// Messages are parsed as untrusted input; malformed and truncated ones are
// skipped, and a message is at most the 16 KiB read buffer.
package uevent
