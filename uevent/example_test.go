package uevent_test

import (
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/uevent"
)

// Parse decodes one message as the kernel sends it on NETLINK_KOBJECT_UEVENT:
// a header, then NUL-terminated KEY=VALUE pairs. A Monitor (Listen) reads
// such messages from the kernel and parses them the same way.
func ExampleParse() {
	msg := []byte("add@/module/nf_tables\x00ACTION=add\x00DEVPATH=/module/nf_tables\x00" +
		"SUBSYSTEM=module\x00SEQNUM=4711\x00")
	ev, err := uevent.Parse(msg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ev.Action, ev.Subsystem, ev.Module(), ev.Seqnum)
	// Output:
	// add module nf_tables 4711
}
