#include "course/boundary.hpp"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace course::boundary {
namespace {

// Percent-encoding of every byte that is not a printable, non-space ASCII character: a token never holds a
// space or a newline, whatever the text.
std::string escape(const std::string& text)
{
    static const char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (c > 32 && c < 127 && c != '%') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out.empty() ? std::string("%") : out;  // "%" alone: the empty string
}

bool unescape(const std::string& token, std::string& out)
{
    out.clear();
    if (token == "%") return true;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '%') {
            out += token[i];
            continue;
        }
        if (i + 2 >= token.size()) return false;
        const auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
        const int hi = digit(token[i + 1]), lo = digit(token[i + 2]);
        if (hi < 0 || lo < 0) return false;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return true;
}

bool to_unsigned(const std::string& token, unsigned long long& value)
{
    if (token.empty() || token.size() > 20 || token[0] < '0' || token[0] > '9') return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtoull(token.c_str(), &end, 10);
    return errno == 0 && *end == '\0';
}

bool to_signed(const std::string& token, long long& value)
{
    if (token.empty() || token.size() > 20) return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtoll(token.c_str(), &end, 10);
    return errno == 0 && *end == '\0';
}

bool to_size(const std::string& token, std::size_t& value)
{
    unsigned long long v = 0;
    if (!to_unsigned(token, v)) return false;
    value = static_cast<std::size_t>(v);
    return true;
}

std::vector<std::string> split(const std::string& line)
{
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start <= line.size()) {
        const std::size_t end = line.find(' ', start);
        tokens.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return tokens;
}

const char* role_name(Role r) { return r == Role::in ? "in" : r == Role::inout ? "inout" : "out"; }
const char* init_name(Init i)
{
    return i == Init::none ? "none" : i == Init::data ? "data" : i == Init::fill ? "fill" : "periodic";
}

// Reads `text`, a `what` ("request", "reply"), line by line: each line's tokens go to `read_line`, which says
// whether the line is well formed; the first that is not ends the reading: false, the line (200 bytes) in `why`.
template <class ReadLine>
bool read_lines(const std::string& text, const char* what, std::string& why, ReadLine read_line)
{
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (!read_line(split(line))) {
            why = std::string("malformed ") + what + " line: " + line.substr(0, 200);
            return false;
        }
    }
    return true;
}

}  // namespace

const char* to_string(Status status)
{
    return status == Status::ok ? "ok" : status == Status::rejected ? "rejected" : "error";
}

std::string encode(const Request& r)
{
    std::ostringstream s;
    s << "op " << escape(r.op) << "\nn " << r.n << "\nblock " << r.block << '\n';
    for (const auto& [key, value] : r.params) s << "param " << escape(key) << ' ' << value << '\n';
    for (const BufferSpec& b : r.buffers)
        s << "buf " << role_name(b.role) << ' ' << b.elem << ' ' << b.lead << ' ' << b.count << ' ' << b.tail << ' '
          << init_name(b.init) << ' ' << b.arena << ' ' << b.offset << ' ' << b.period << ' ' << b.fill << ' '
          << (b.null ? 1 : 0) << ' ' << b.back << ' ' << b.address << '\n';
    for (const NewArena& a : r.new_arenas) s << "arena " << a.id << ' ' << a.bytes << ' ' << (a.writable ? 1 : 0) << '\n';
    for (int id : r.dropped_arenas) s << "drop " << id << '\n';
    s << "out " << r.out_arena << '\n';
    if (r.hold) s << "hold 1\n";
    return s.str();
}

bool decode(const std::string& text, Request& r, std::string& why)
{
    r = Request{};
    bool have_op = false;
    const bool well_formed = read_lines(text, "request", why, [&](const std::vector<std::string>& t) {
        const std::string& key = t[0];
        bool ok = false;
        if (key == "op" && t.size() == 2) {
            ok = unescape(t[1], r.op);
            have_op = ok;
        } else if (key == "n" && t.size() == 2) {
            ok = to_size(t[1], r.n);
        } else if (key == "block" && t.size() == 2) {
            ok = to_signed(t[1], r.block);
        } else if (key == "param" && t.size() == 3) {
            std::string name;
            long long value = 0;
            ok = unescape(t[1], name) && to_signed(t[2], value);
            r.params.emplace_back(name, value);
        } else if (key == "buf" && t.size() == 14) {
            BufferSpec b;
            b.role = t[1] == "in" ? Role::in : t[1] == "inout" ? Role::inout : Role::out;
            b.init = t[6] == "data" ? Init::data : t[6] == "fill" ? Init::fill : t[6] == "periodic" ? Init::periodic
                                                                                                  : Init::none;
            long long arena = 0, back = 0;
            std::size_t fill = 0, null = 0;
            ok = to_size(t[2], b.elem) && to_size(t[3], b.lead) && to_size(t[4], b.count) && to_size(t[5], b.tail) &&
                 to_signed(t[7], arena) && to_size(t[8], b.offset) && to_size(t[9], b.period) && to_size(t[10], fill) &&
                 to_size(t[11], null) && to_signed(t[12], back) && to_unsigned(t[13], b.address) && b.elem > 0 &&
                 b.elem <= 16 && fill < 256;
            b.arena = static_cast<int>(arena);
            b.fill = static_cast<unsigned>(fill);
            b.null = null != 0;
            b.back = back;
            r.buffers.push_back(b);
        } else if (key == "arena" && t.size() == 4) {
            NewArena a;
            long long id = 0;
            std::size_t writable = 0;
            ok = to_signed(t[1], id) && to_size(t[2], a.bytes) && to_size(t[3], writable);
            a.id = static_cast<int>(id);
            a.writable = writable != 0;
            r.new_arenas.push_back(a);
        } else if (key == "drop" && t.size() == 2) {
            long long id = 0;
            ok = to_signed(t[1], id);
            r.dropped_arenas.push_back(static_cast<int>(id));
        } else if (key == "hold" && t.size() == 2) {
            ok = t[1] == "1";
            r.hold = ok;
        } else if (key == "out" && t.size() == 2) {
            long long id = 0;
            ok = to_signed(t[1], id);
            r.out_arena = static_cast<int>(id);
        }
        return ok;
    });
    if (!well_formed) return false;
    if (!have_op) why = "a request without an operation";
    return have_op;
}

std::string encode(const Reply& r)
{
    std::ostringstream s;
    s << "status " << to_string(r.status) << "\nmessage " << escape(r.message) << '\n';
    for (const auto& [key, value] : r.values) s << "value " << escape(key) << ' ' << escape(value) << '\n';
    if (r.fatal) s << "fatal 1\n";
    return s.str();
}

bool decode(const std::string& text, Reply& r, std::string& why)
{
    r = Reply{};
    bool have_status = false;
    const bool well_formed = read_lines(text, "reply", why, [&](const std::vector<std::string>& t) {
        bool ok = false;
        if (t[0] == "status" && t.size() == 2) {
            ok = t[1] == "ok" || t[1] == "rejected" || t[1] == "error";
            r.status = t[1] == "ok" ? Status::ok : t[1] == "rejected" ? Status::rejected : Status::error;
            have_status = ok;
        } else if (t[0] == "message" && t.size() == 2) {
            ok = unescape(t[1], r.message);
            if (r.message.size() > max_reply_text) r.message = r.message.substr(0, max_reply_text) + " [...]";
        } else if (t[0] == "value" && t.size() == 3 && r.values.size() < 256) {
            std::string key, value;
            ok = unescape(t[1], key) && unescape(t[2], value) && key.size() < 64 && value.size() < 256;
            r.values.emplace_back(key, value);
        } else if (t[0] == "fatal" && t.size() == 2) {
            ok = true;
            r.fatal = t[1] == "1";
        }
        return ok;
    });
    if (!well_formed) return false;
    if (!have_status) why = "a reply without a status";
    return have_status;
}

bool send_message(int socket, const std::string& text, const std::vector<int>& fds)
{
    if (text.size() > max_message) return false;
    iovec io{const_cast<char*>(text.data()), text.size()};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    std::vector<char> control;
    if (!fds.empty()) {
        control.assign(CMSG_SPACE(sizeof(int) * fds.size()), 0);
        msg.msg_control = control.data();
        msg.msg_controllen = control.size();
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    ssize_t sent;
    do {
        sent = sendmsg(socket, &msg, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent == static_cast<ssize_t>(text.size());
}

int receive_message(int socket, std::string& text, std::vector<int>* fds)
{
    std::vector<char> buffer(max_message + 1);
    iovec io{buffer.data(), buffer.size()};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 16)];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t got;
    do {
        got = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC);
    } while (got < 0 && errno == EINTR);
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); got >= 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (fds != nullptr) fds->push_back(fd);
            else close(fd);
        }
    }
    if (got < 0) return -1;
    if (got == 0) return 0;
    if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || static_cast<std::size_t>(got) > max_message) return -1;
    text.assign(buffer.data(), static_cast<std::size_t>(got));
    return 1;
}

}  // namespace course::boundary
