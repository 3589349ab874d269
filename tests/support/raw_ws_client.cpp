#include "tests/support/raw_ws_client.h"

#include <boost/asio/write.hpp>

#include <poll.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <thread>

namespace parlor::testing {

namespace asio = boost::asio;

int RawWsClient::Frame::close_code() const {
  if (payload.size() < 2) return 0;
  return (static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]);
}

std::string RawWsClient::Frame::close_reason() const {
  return payload.size() > 2 ? payload.substr(2) : "";
}

RawWsClient::RawWsClient(unsigned short port) : socket_(io_) {
  socket_.connect({asio::ip::make_address("127.0.0.1"), port});
}

std::string RawWsClient::upgrade(const std::string& key, const std::string& extra) {
  return request_head(
      "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: "
      "Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " +
      key + "\r\n" + extra + "\r\n");
}

std::string RawWsClient::request_head(const std::string& request) {
  write(request);
  while (true) {
    const auto end = input_.find("\r\n\r\n");
    if (end != std::string::npos) {
      std::string head = input_.substr(0, end + 4);
      input_.erase(0, end + 4);
      return head;
    }
    if (!fill(std::chrono::seconds(5))) return input_;
  }
}

void RawWsClient::open() {
  const std::string head = upgrade();
  if (!head.starts_with("HTTP/1.1 101")) throw std::runtime_error("upgrade refused: " + head);
}

std::string RawWsClient::frame(const Out& out) {
  std::string bytes;
  bytes.push_back(static_cast<char>((out.fin ? 0x80 : 0) | (out.rsv & 0x70) | (out.opcode & 0x0f)));
  const unsigned mask_bit = out.masked ? 0x80 : 0;
  const std::size_t size = out.payload.size();
  if (size < 126) {
    bytes.push_back(static_cast<char>(mask_bit | size));
  } else if (size < 65536) {
    bytes.push_back(static_cast<char>(mask_bit | 126));
    bytes.push_back(static_cast<char>(size >> 8));
    bytes.push_back(static_cast<char>(size & 0xff));
  } else {
    bytes.push_back(static_cast<char>(mask_bit | 127));
    for (int shift = 56; shift >= 0; shift -= 8)
      bytes.push_back(static_cast<char>((size >> shift) & 0xff));
  }
  if (!out.masked) return bytes + out.payload;
  const std::array<char, 4> key{static_cast<char>(out.mask >> 24),
                                static_cast<char>(out.mask >> 16), static_cast<char>(out.mask >> 8),
                                static_cast<char>(out.mask)};
  bytes.append(key.data(), key.size());
  for (std::size_t i = 0; i < size; ++i)
    bytes.push_back(static_cast<char>(out.payload[i] ^ key[i % 4]));
  return bytes;
}

std::string RawWsClient::close_payload(int code, const std::string& reason) {
  return std::string{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)} + reason;
}

bool RawWsClient::write(const std::string& bytes) {
  boost::system::error_code ec;
  asio::write(socket_, asio::buffer(bytes), ec);
  return !ec;
}

bool RawWsClient::write_in_pieces(const std::string& bytes, std::size_t piece,
                                  std::chrono::milliseconds pause) {
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    if (at > 0 && pause.count() > 0) std::this_thread::sleep_for(pause);
    if (!write(bytes.substr(at, piece))) return false;
  }
  return true;
}

std::optional<RawWsClient::Frame> RawWsClient::next(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (input_.size() >= 2) {
      const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(input_[i]); };
      std::uint64_t length = byte(1) & 0x7f;
      std::size_t offset = 2;
      bool complete_header = true;
      if (length == 126) {
        complete_header = input_.size() >= 4;
        if (complete_header) length = (byte(2) << 8) | byte(3);
        offset = 4;
      } else if (length == 127) {
        complete_header = input_.size() >= 10;
        if (complete_header) {
          length = 0;
          for (std::size_t i = 2; i < 10; ++i) length = (length << 8) | byte(i);
        }
        offset = 10;
      }
      const bool masked = (byte(1) & 0x80) != 0;
      if (masked) offset += 4;
      if (complete_header && input_.size() >= offset + length) {
        Frame out;
        out.opcode = byte(0) & 0x0f;
        out.fin = (byte(0) & 0x80) != 0;
        out.rsv = byte(0) & 0x70;
        out.masked = masked;
        out.payload = input_.substr(offset, length);
        if (masked) {
          for (std::size_t i = 0; i < out.payload.size(); ++i)
            out.payload[i] = static_cast<char>(out.payload[i] ^ input_[offset - 4 + i % 4]);
        }
        input_.erase(0, offset + length);
        return out;
      }
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !fill(left)) return std::nullopt;
  }
}

bool RawWsClient::silent_for(std::chrono::milliseconds quiet) {
  if (!input_.empty()) return false;
  pollfd ready{socket_.native_handle(), POLLIN, 0};
  return ::poll(&ready, 1, static_cast<int>(quiet.count())) == 0;
}

boost::system::error_code RawWsClient::end(std::chrono::milliseconds timeout) {
  while (fill(timeout)) {
  }
  return ended_;
}

bool RawWsClient::fill(std::chrono::milliseconds timeout) {
  pollfd ready{socket_.native_handle(), POLLIN, 0};
  if (::poll(&ready, 1, static_cast<int>(std::max<long>(timeout.count(), 0))) != 1) {
    ended_ = asio::error::timed_out;
    return false;
  }
  std::array<char, 16384> buffer{};
  boost::system::error_code ec;
  const std::size_t n = socket_.read_some(asio::buffer(buffer), ec);
  if (ec) {
    ended_ = ec;
    return false;
  }
  input_.append(buffer.data(), n);
  return true;
}

}  // namespace parlor::testing
