#include "message_exchange.hpp"

#include "papshim/waiting.hpp"

#include <span>
#include <vector>

namespace papshim::schedule {
namespace {

// Per thread and reused, so the hot path of small messages does not allocate after the
// first call (concurrent collectives on different communicators each have their own).
struct Requests {
    std::vector<MPI_Request> requests;
    std::vector<MPI_Status> statuses;
};
thread_local Requests scratch;

// The first real error among the statuses of a failed Waitall.
int first_status_error(int waitall_error, const std::vector<MPI_Status>& statuses) {
    if (waitall_error != MPI_ERR_IN_STATUS) return waitall_error;
    for (const MPI_Status& status : statuses) {
        if (status.MPI_ERROR != MPI_SUCCESS && status.MPI_ERROR != MPI_ERR_PENDING) return status.MPI_ERROR;
    }
    return waitall_error;
}

// After a failed post or wait: the receives (posted first) and sends still pending.
void abandon_step(std::vector<MPI_Request>& requests, std::size_t posted_receives) {
    const std::span<MPI_Request> all(requests);
    abandon(all.first(posted_receives), all.subspan(posted_receives));
    requests.clear();
}

int post(const WireMessage& m, int tag, MPI_Comm comm, MPI_Request& request) {
    return m.receive ? PMPI_Irecv(m.buffer, m.count, m.type, m.peer, tag, comm, &request)
                     : PMPI_Isend(m.buffer, m.count, m.type, m.peer, tag, comm, &request);
}

}  // namespace

int exchange(std::span<const WireMessage> messages, int tag, MPI_Comm comm) {
    auto& requests = scratch.requests;
    requests.clear();
    std::size_t posted_receives = 0;
    for (bool receives : {true, false}) {
        for (const WireMessage& m : messages) {
            if (m.receive != receives) continue;
            MPI_Request request = MPI_REQUEST_NULL;
            if (const int error = post(m, tag, comm, request); error != MPI_SUCCESS) {
                abandon_step(requests, posted_receives);
                return error;
            }
            requests.push_back(request);
            if (receives) posted_receives = requests.size();
        }
    }
    if (requests.empty()) return MPI_SUCCESS;
    scratch.statuses.resize(requests.size());
    const int error = wait_all(static_cast<int>(requests.size()), requests.data(), scratch.statuses.data());
    if (error == MPI_SUCCESS) return error;
    const int first = first_status_error(error, scratch.statuses);
    abandon_step(requests, posted_receives);
    return first;
}

}  // namespace papshim::schedule
