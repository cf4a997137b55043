// DaemonLink over transport::Connection.
#include "client/detail/daemon_link.h"

namespace textfeed::client::internal {
namespace {

class ConnectionLink final : public DaemonLink {
 public:
  explicit ConnectionLink(std::unique_ptr<transport::Connection> conn) : conn_(std::move(conn)) {}

  const transport::HelloReply& hello() const override { return conn_->hello(); }
  Result<transport::StreamOpened> open(const transport::OpenStream& request,
                                       std::chrono::milliseconds timeout) override {
    return conn_->open(request, timeout);
  }
  Status attach(const transport::StreamOpened& stream, const SlotRing& ring,
                std::chrono::milliseconds timeout) override {
    return conn_->attach(stream, ring.memory_fd(), ring.count(), ring.stride(), timeout);
  }
  Status credit(const transport::Credit& credit) override { return conn_->credit(credit); }
  Result<std::optional<transport::Message>> poll(
      std::chrono::milliseconds timeout, const transport::Connection::PayloadFor& payload_for,
      const Wakeup* wake) override {
    return conn_->poll(timeout, payload_for, wake);
  }
  Status close(uint64_t stream_id, std::chrono::milliseconds timeout) override {
    return conn_->close(stream_id, timeout);
  }
  Clock::TimePoint last_heard() const override { return conn_->last_heard(); }

 private:
  std::unique_ptr<transport::Connection> conn_;
};

class ConnectionConnector final : public DaemonConnector {
 public:
  Result<std::unique_ptr<DaemonLink>> connect(const std::string& endpoint,
                                              const std::string& client_name,
                                              const transport::ConnectOptions& options) override {
    TF_ASSIGN_OR_RETURN(std::unique_ptr<transport::Connection> conn,
                        transport::Connection::connect(endpoint, client_name, options));
    return std::unique_ptr<DaemonLink>(std::make_unique<ConnectionLink>(std::move(conn)));
  }
};

}  // namespace

std::shared_ptr<DaemonConnector> connection_connector() {
  return std::make_shared<ConnectionConnector>();
}

}  // namespace textfeed::client::internal
