package import Foundation
import Synchronization

/// For `--dev`: tells every open page to reload when a file under the watched folders
/// (`Templates/`, `Public/`) is added, removed or changed, or when the server has restarted.
///
/// The state of the files and of the process is one short ``version()`` string. A page's stream
/// starts with it (the browser keeps it as the last event id); a reconnecting browser that names
/// another version is told to reload at once, so restarting the server reloads open pages too.
/// Each open stream looks at the folders every ``interval`` in its own task, so nothing runs
/// while no page is open. Development only: a stat per file per interval per open page.
package struct DevelopmentReload: Sendable {
    /// What an open page is told.
    package enum Message: Sendable, Equatable {
        /// The files and the process as they are now, to be remembered.
        case version(String)
        /// Something changed: reload. Nothing follows.
        case reload
        case heartbeat
    }

    private let folders: [URL]
    private let interval: Duration
    private let heartbeatInterval: Duration
    /// Random per process, so a restart is a change.
    private let bootID: [UInt8]

    package init(folders: [URL], interval: Duration, heartbeatInterval: Duration) {
        self.folders = folders
        self.interval = interval
        self.heartbeatInterval = heartbeatInterval
        bootID = SecureRandom.bytes(16)
    }

    /// A digest of the process and of every file's path, size and modification time.
    package func version() -> String {
        var lines: [String] = []
        for folder in folders {
            let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
            guard let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: keys) else { continue }
            for case let file as URL in files {
                guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
                let modified = values.contentModificationDate?.timeIntervalSince1970 ?? 0
                lines.append("\(file.path)\t\(values.fileSize ?? -1)\t\(modified)")
            }
        }
        let digest = SHA256.hash(bootID + Array(lines.sorted().joined(separator: "\n").utf8))
        return Base64URL.encode(digest.prefix(12))
    }

    /// One page's messages: ``Message/reload`` at once when `lastSeen` (the browser's last
    /// event id) is another version, else the version, then heartbeats until something changes.
    package func messages(lastSeen: String?) -> AsyncStream<Message> {
        let watch = Watch()
        return AsyncStream { [self] in
            await next(after: watch, lastSeen: lastSeen)
        }
    }

    private func next(after watch: Watch, lastSeen: String?) async -> Message? {
        let (stage, lastBeat) = watch.state.withLock { ($0.stage, $0.lastBeat) }
        switch stage {
        case .done:
            return nil
        case .starting:
            let current = version()
            if let lastSeen, lastSeen != current {
                watch.state.withLock { $0.stage = .done }
                return .reload
            }
            watch.state.withLock { $0 = Watch.State(stage: .watching(current), lastBeat: .now) }
            return .version(current)
        case .watching(let started):
            while true {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return nil
                }
                if version() != started {
                    watch.state.withLock { $0.stage = .done }
                    return .reload
                }
                if ContinuousClock.now - lastBeat >= heartbeatInterval {
                    watch.state.withLock { $0.lastBeat = .now }
                    return .heartbeat
                }
            }
        }
    }

    /// Where one page's watch stands; one consumer calls ``next(after:lastSeen:)`` at a time,
    /// the `Mutex` makes the state Sendable.
    private final class Watch: Sendable {
        enum Stage {
            case starting
            case watching(String)
            case done
        }

        struct State {
            var stage = Stage.starting
            var lastBeat = ContinuousClock.now
        }

        let state = Mutex(State())
    }
}
