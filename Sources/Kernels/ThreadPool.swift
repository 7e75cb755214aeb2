import Builtin
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A persistent pool of worker threads for data-parallel loops.
///
/// `parallelFor` splits `0..<count` into chunks that the caller and the workers
/// claim dynamically. Which thread runs a chunk varies from call to call, so
/// bodies must compute each index independently of the chunking (the matrix
/// kernels compute every output row in one thread with a fixed operation
/// order, which makes results identical for every thread count).
///
/// Waiting is "spin briefly, then block", on both sides: workers spin (with the
/// CPU's `pause` hint) for about `spinBudget` after each loop, because a
/// transformer's operations follow each other within microseconds, then park on a
/// condition variable; the caller, once no chunk is left to claim, spins for the
/// same budget on the chunks still running and then blocks until the last one
/// completes. Blocking matters when cores are shared: a worker preempted while it
/// holds a chunk can then run on the caller's core instead of waiting for the
/// neighbour's time slice to end (with pure spinning, one such preemption stalls
/// the whole loop for a scheduler slice, milliseconds).
/// Threads are created once, in `init`, and joined in `deinit`.
/// A `parallelFor` issued while another is running (from inside a body or from
/// a second thread) runs serially on its caller.
public final class ThreadPool: @unchecked Sendable {
    public typealias Body = (Range<Int>) -> Void

    /// Threads taking part in each loop, the caller included.
    public let threadCount: Int

    /// Cores this process may run on.
    public static var availableCores: Int {
        return max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// What the workers share with the caller. Workers hold it (strongly), never the
    /// pool itself: a worker that referenced the pool would keep it alive, so `deinit`
    /// would never run (threads leaked) or would run on a worker and join itself.
    private let shared: PoolShared
    private var threads: [pthread_t] = []

    public init(threadCount: Int = ThreadPool.availableCores) {
        self.threadCount = max(1, threadCount)
        shared = PoolShared()
        for _ in 1..<self.threadCount {
            let context = Unmanaged.passRetained(shared).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(&thread, nil, { raw in
                let shared = Unmanaged<PoolShared>.fromOpaque(raw!).takeRetainedValue()
                shared.workerLoop()
                return nil
            }, context)
            precondition(status == 0, "ThreadPool: pthread_create failed with \(status)")
            threads.append(thread)
        }
    }

    /// Stops the workers (spinning, parked or not yet started) and joins them.
    deinit {
        shared.stop()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// Calls `body` on disjoint ranges covering `0..<count`, each range a
    /// multiple of `grain` long (except the last), on all threads of the pool.
    /// Returns when every range is done.
    public func parallelFor(_ count: Int, grain: Int = 1, _ body: Body) {
        shared.parallelFor(count, grain: grain, threadCount: threadCount, body)
    }
}

/// The state of one pool's loops: the cursor and fields of the current loop, and
/// the parking lot. Shared by the caller's `ThreadPool` and its workers.
private final class PoolShared: @unchecked Sendable {
    typealias Body = ThreadPool.Body
    // Upper 32 bits: generation of the current loop; lower 32: next chunk to claim.
    private let cursor = Atomic<Int>(0)
    private let completedChunks = Atomic<Int>(0)
    private let chunkCount = Atomic<Int>(0)
    private let chunkSize = Atomic<Int>(0)
    private let itemCount = Atomic<Int>(0)
    private let bodyAddress = Atomic<Int>(0)
    private let sleepers = Atomic<Int>(0)
    /// The caller is blocked on `doneCondition` until `completedChunks` reaches the loop's chunk count.
    private let callerBlocked = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    private let doneMutex: UnsafeMutablePointer<pthread_mutex_t>
    private let doneCondition: UnsafeMutablePointer<pthread_cond_t>

    /// Spin iterations (each one `pause`, about 30-140 cycles, plus a load) before a
    /// worker parks or the caller blocks: about 50-150 µs on current x86 cores.
    /// `FMPLAY_POOL_SPIN` overrides it (0: block at once), for measurements.
    static let spinLimit: Int = {
        if let text = getenv("FMPLAY_POOL_SPIN"), let value = Int(String(cString: text)), value >= 0 { return value }
        return 1 << 11
    }()

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        doneMutex = .allocate(capacity: 1)
        doneCondition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        pthread_mutex_init(doneMutex, nil)
        pthread_cond_init(doneCondition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(doneCondition)
        pthread_mutex_destroy(doneMutex)
        mutex.deallocate()
        condition.deallocate()
        doneMutex.deallocate()
        doneCondition.deallocate()
    }

    /// Makes every worker return from `workerLoop`: spinning ones see the new
    /// generation, parked ones are woken, ones not started yet see `stopping`.
    func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        cursor.wrappingAdd(1 << 32, ordering: .sequentiallyConsistent)
        pthread_mutex_lock(mutex)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Calls `body` on disjoint ranges covering `0..<count`, each range a
    /// multiple of `grain` long (except the last), on all threads of the pool.
    /// Returns when every range is done.
    func parallelFor(_ count: Int, grain: Int, threadCount: Int, _ body: Body) {
        guard count > 0 else { return }
        let grain = max(1, grain)
        if threadCount == 1 || count <= grain || !running.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            body(0..<count)
            return
        }
        defer { running.store(false, ordering: .releasing) }
        // About four chunks per thread balance load without much claiming overhead.
        let grains = (count + grain - 1) / grain
        let size = max(1, grains / (threadCount * 4)) * grain
        let chunks = (count + size - 1) / size
        withoutActuallyEscaping(body) { escapable in
            var job: Body = escapable
            withUnsafeMutablePointer(to: &job) { jobPointer in
                // Close the previous loop's chunks before changing the fields (see `runChunks`).
                let generation = (cursor.load(ordering: .sequentiallyConsistent) >> 32) &+ 1
                cursor.store(generation << 32 | PoolShared.noChunks, ordering: .sequentiallyConsistent)
                itemCount.store(count, ordering: .sequentiallyConsistent)
                chunkSize.store(size, ordering: .sequentiallyConsistent)
                chunkCount.store(chunks, ordering: .sequentiallyConsistent)
                completedChunks.store(0, ordering: .sequentiallyConsistent)
                bodyAddress.store(Int(bitPattern: UnsafeMutableRawPointer(jobPointer)), ordering: .sequentiallyConsistent)
                cursor.store(generation << 32, ordering: .sequentiallyConsistent)
                if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
                    pthread_mutex_lock(mutex)
                    pthread_cond_broadcast(condition)
                    pthread_mutex_unlock(mutex)
                }
                runChunks(generation: generation)
                waitForCompletion(chunks: chunks)
            }
        }
    }

    /// Returns when all `chunks` chunks of the current loop have completed: spins for
    /// `spinLimit` iterations, then blocks until the worker finishing the last chunk signals.
    private func waitForCompletion(chunks: Int) {
        var spins = 0
        while completedChunks.load(ordering: .acquiring) < chunks {
            spins += 1
            if spins < PoolShared.spinLimit {
                spinPause()
                continue
            }
            pthread_mutex_lock(doneMutex)
            callerBlocked.store(true, ordering: .sequentiallyConsistent)
            // A worker increments `completedChunks` and then reads `callerBlocked` (both
            // sequentially consistent), and signals under `doneMutex`: either this load sees
            // the last completion, or that worker sees the flag and signals after the wait began.
            while completedChunks.load(ordering: .sequentiallyConsistent) < chunks {
                pthread_cond_wait(doneCondition, doneMutex)
            }
            callerBlocked.store(false, ordering: .sequentiallyConsistent)
            pthread_mutex_unlock(doneMutex)
        }
    }

    /// Low half of `cursor` while a loop's fields are being written.
    private static let noChunks = 0xFFFF_FFFF

    /// Claims and runs chunks of loop `generation` until none are left.
    ///
    /// The fields are read between a load of `cursor` that shows `generation`
    /// and the compare-exchange that claims a chunk of it. A new loop stores
    /// `noChunks` into `cursor` before it rewrites the fields, and every access
    /// is sequentially consistent, so a successful claim proves the fields read
    /// belonged to `generation`; and that loop cannot finish (and its body go
    /// away) before the claimed chunk completes.
    private func runChunks(generation: Int) {
        while true {
            let current = cursor.load(ordering: .sequentiallyConsistent)
            guard current >> 32 == generation else { return }
            let next = current & 0xFFFF_FFFF
            if next == PoolShared.noChunks { continue }
            let chunks = chunkCount.load(ordering: .sequentiallyConsistent)
            guard next < chunks else { return }
            let size = chunkSize.load(ordering: .sequentiallyConsistent)
            let count = itemCount.load(ordering: .sequentiallyConsistent)
            let address = bodyAddress.load(ordering: .sequentiallyConsistent)
            guard cursor.compareExchange(expected: current, desired: current + 1, ordering: .sequentiallyConsistent).exchanged else { continue }
            let job = UnsafeMutablePointer<Body>(bitPattern: address)!
            let start = next * size
            job.pointee(start..<min(count, start + size))
            let completed = completedChunks.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
            if completed == chunks && callerBlocked.load(ordering: .sequentiallyConsistent) {
                pthread_mutex_lock(doneMutex)
                pthread_cond_signal(doneCondition)
                pthread_mutex_unlock(doneMutex)
            }
        }
    }

    func workerLoop() {
        var seen = 0
        while !stopping.load(ordering: .acquiring) {
            var spins = 0
            var generation = cursor.load(ordering: .acquiring) >> 32
            while generation == seen {
                spins += 1
                spinPause()
                if spins >= PoolShared.spinLimit {
                    sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
                    pthread_mutex_lock(mutex)
                    while cursor.load(ordering: .sequentiallyConsistent) >> 32 == seen && !stopping.load(ordering: .sequentiallyConsistent) {
                        pthread_cond_wait(condition, mutex)
                    }
                    pthread_mutex_unlock(mutex)
                    sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                    spins = 0
                }
                generation = cursor.load(ordering: .acquiring) >> 32
                if stopping.load(ordering: .relaxed) { return }
            }
            if stopping.load(ordering: .acquiring) { return }
            seen = generation
            runChunks(generation: generation)
        }
    }
}


/// The CPU's spin-wait hint (`pause` on x86): lets a sibling hyperthread run and
/// saves power while a thread polls a flag.
@inline(__always)
func spinPause() {
    #if arch(x86_64)
    Builtin.int_x86_sse2_pause()
    #endif
}
