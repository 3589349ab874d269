#include "server/static_files.h"

#include <gtest/gtest.h>

namespace parlor::server {
namespace {

TEST(StaticFiles, MapsTargetsUnderTheRoot) {
  EXPECT_EQ(resolve_static_path("/srv/web", "/"), "/srv/web/index.html");
  EXPECT_EQ(resolve_static_path("/srv/web/", "/app.js?v=3"), "/srv/web/app.js");
  EXPECT_EQ(resolve_static_path("/srv/web", "/assets/"), "/srv/web/assets/index.html");
  EXPECT_EQ(resolve_static_path("/srv/web", "/a%20b.css"), "/srv/web/a b.css");
}

TEST(StaticFiles, RefusesTraversal) {
  for (const char* target :
       {"/../etc/passwd", "/assets/../../x", "/%2e%2e/etc/passwd", "/%2E%2E%2Fetc", "/..",
        "/a\\..\\b", "/a%00b", "relative", "", "/%zz", "/%2"}) {
    EXPECT_FALSE(resolve_static_path("/srv/web", target)) << target;
  }
}

TEST(StaticFiles, MimeTypes) {
  EXPECT_EQ(mime_type("x/index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(mime_type("app.JS"), "text/javascript; charset=utf-8");
  EXPECT_EQ(mime_type("a.css"), "text/css; charset=utf-8");
  EXPECT_EQ(mime_type("a.svg"), "image/svg+xml");
  EXPECT_EQ(mime_type("noext"), "application/octet-stream");
}

}  // namespace
}  // namespace parlor::server
