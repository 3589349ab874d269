# Install rules and the Debian package (`make package`, or `cpack -G DEB` in a build
# directory): parlor_<version>_amd64.deb. The rules describe the package's layout under the
# prefix /usr, which the unit (/usr/bin/parlor-server) and the default config
# (/usr/share/parlor/web) name; `cmake --install BUILD --prefix /usr` lays out the same files.
# docs/OPERATIONS.md ("Installing the package") says what the package sets up.

include(GNUInstallDirs)

# The programs: the server and the tools that talk to it.
install(TARGETS parlor-server parlor-bot parlor-load parlor-sim
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Backup and restore of the SQLite store (docs/OPERATIONS.md, "Backup and restore").
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/backup/parlor-backup.sh
        DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME parlor-backup)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/deploy/backup/parlor-restore.sh
        DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME parlor-restore)

# The built web client (make web); a build without it ships a server that serves no page.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/client-web/dist/ DESTINATION ${CMAKE_INSTALL_DATADIR}/parlor/web
        OPTIONAL)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/OPERATIONS.md
              ${PROJECT_SOURCE_DIR}/docs/SECURITY.md ${PROJECT_SOURCE_DIR}/docs/ARCHITECTURE.md
              ${PROJECT_SOURCE_DIR}/docs/ENGINES.md ${PROJECT_SOURCE_DIR}/docs/BENCHMARKS.md
              ${PROJECT_SOURCE_DIR}/protocol/PROTOCOL.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The TLS proxies' configurations, templates to fill (OPERATIONS.md, "Behind nginx or HAProxy
# with TLS").
install(FILES ${PROJECT_SOURCE_DIR}/deploy/nginx/parlor.conf
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/nginx)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/haproxy/parlor-tls.cfg
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/haproxy)

# The systemd unit, where Debian packages put theirs (/lib is /usr/lib on Debian 12), and the
# default config: absolute, /etc is never under the prefix. The package marks it a conffile.
install(FILES ${PROJECT_SOURCE_DIR}/deploy/parlor.service DESTINATION lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/deploy/parlor.conf DESTINATION /etc/parlor)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME parlor)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time multiplayer card and board game server")
# Wrapped as Debian's Description lines are; CPack indents them.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "Parlor serves Big Two, Spades, Bid Whist, Agram and Gem Merchants to\n"
       "browsers, bots and load generators over WebSockets. The server is\n"
       "authoritative: it validates every move and sends each player only what\n"
       "that player may see. Includes the web client, parlor-bot, parlor-load,\n"
       "parlor-sim and a hardened systemd unit.")
set(PARLOR_PACKAGE_CONTACT "Parlor maintainers <maintainers@parlor.invalid>"
    CACHE STRING "The Debian package's Maintainer field")
set(CPACK_PACKAGE_CONTACT "${PARLOR_PACKAGE_CONTACT}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Release binaries without their symbol tables: a fifth of the size.
set(CPACK_STRIP_FILES ON)
# DEB-DEFAULT: parlor_<version>_<architecture>.deb, Debian's own naming.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION games)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The libraries' packages, found by dpkg-shlibdeps from what the binaries link (libssl3,
# libsqlite3-0, libpq5, libhiredis0.14, libmimalloc2.0, libstdc++6, libc6, ...); adduser for
# postinst. tests/package/package_test.sh checks them against ldd.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")
# The sqlite3 command, for parlor-backup and parlor-restore.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "sqlite3")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${PROJECT_SOURCE_DIR}/deploy/debian/conffiles ${PROJECT_SOURCE_DIR}/deploy/debian/postinst
    ${PROJECT_SOURCE_DIR}/deploy/debian/prerm ${PROJECT_SOURCE_DIR}/deploy/debian/postrm)
# Maintainer scripts 0755 and control files 0644 whatever the checkout's modes are.
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)

# The package test: build the .deb from this build directory, unpack it into a scratch root,
# check its control files, layout and unit, and start the unpacked server with the unpacked
# config. Touches nothing outside a temporary directory (tests/package/package_test.sh).
# Not in sanitizer builds: nobody ships those, and the tsan preset builds only the binaries
# its tests need, not the ones the package holds.
if(PARLOR_BUILD_TESTS AND NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize")
  add_test(NAME package_install
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/package/package_test.sh ${CMAKE_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(package_install PROPERTIES LABELS integration TIMEOUT 300)
endif()
