#!/bin/sh
# Builds the test RPMs of testdata/kimage/rpm with rpmbuild (Debian 12's
# rpm 4.18.0): kernel-core-6.1.0-demo.{gz,xz,zst}.rpm, one per payload
# compression, from the files of ../linux-image-6.1.0-demo.deb, and
# kernel-debuginfo-6.1.0-demo.rpm from ../../dwarf/exec-x86_64.o.gz.
# Run it in this directory: sh make.sh. The RPMs hold build times and the
# build host's name, so a rebuild differs in those bytes only.
set -eu
here=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/deb" "$tmp/SOURCES"
dpkg-deb -x ../linux-image-6.1.0-demo.deb "$tmp/deb"
cp "$tmp/deb/boot/vmlinuz-6.1.0-demo" "$tmp/SOURCES/vmlinuz"
zstd -dc "$tmp/deb/lib/modules/6.1.0-demo/kernel/drivers/misc/demo.ko.zst" | xz -9 -C crc32 > "$tmp/SOURCES/demo.ko.xz"
zcat ../../dwarf/exec-x86_64.o.gz > "$tmp/SOURCES/vmlinux"
build() { # SPEC PAYLOAD OUT
	rpmbuild -bb --quiet --target x86_64 --define "_topdir $tmp" \
		--define "_binary_payload $2" --define "_buildhost kmeta" "$1"
	mv "$tmp"/RPMS/x86_64/*.rpm "$here/$3"
}
build kernel-core.spec w9.gzdio kernel-core-6.1.0-demo.gz.rpm
build kernel-core.spec w9.xzdio kernel-core-6.1.0-demo.xz.rpm
build kernel-core.spec w19.zstdio kernel-core-6.1.0-demo.zst.rpm
build kernel-debuginfo.spec w9.xzdio kernel-debuginfo-6.1.0-demo.rpm
