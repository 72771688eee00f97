# SPDX-License-Identifier: GPL-3.0-or-later
# `cpack -G DEB` in the build folder (./dev.sh package): the sluice .deb, from the install rules.
# Its dependencies on shared libraries come from dpkg-shlibdeps; only what it cannot see is named here.

set(SLUICE_PACKAGE_MAINTAINER "Sluice maintainers <maintainers@users.noreply.a-seed-5549bb16.example>"
    CACHE STRING "The Debian package's Maintainer field")

# The documents Debian wants with every package: the machine-readable copyright and the changelog,
# compressed with gzip -9n (no name or time stamp).
set(doc_dir ${CMAKE_INSTALL_DATADIR}/doc/sluice)
add_custom_command(OUTPUT changelog.gz
    COMMAND gzip -9nc ${CMAKE_CURRENT_SOURCE_DIR}/changelog > changelog.gz
    DEPENDS changelog)
add_custom_target(sluice_changelog ALL DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz)
install(FILES copyright ${CMAKE_CURRENT_BINARY_DIR}/changelog.gz DESTINATION ${doc_dir})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME sluice)
set(CPACK_PACKAGE_VENDOR "Sluice maintainers")
set(CPACK_PACKAGE_CONTACT "${SLUICE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "control room for distributed rate limiters running inside Redis")
# The long description in lines of at most 80 columns, as Debian wants it.
set(CPACK_PACKAGE_DESCRIPTION "Sluice defines rate limit policies, publishes the limiter code to every
Redis primary as a Redis Functions library, shows the limiters at work live
and fires test traffic at them, on Redis 7 standalone, over TLS, through
Sentinel or in a Cluster.
.
This package holds the sluice dashboard, the sluicectl command line, their
manual pages and bash completion, and the Lua sources of the limiter library.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${SLUICE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Loaded as Qt plugins, so dpkg-shlibdeps cannot see them: the SVG image and icon engine (the window icon).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6svg6")
# The sandbox (sluice without --url or --profile) starts a local redis-server; libsecret is how QtKeychain
# reaches the desktop keyring for saved passwords (loaded at run time). Both optional for a remote Redis.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "redis-server, libsecret-1-0")
include(CPack)
