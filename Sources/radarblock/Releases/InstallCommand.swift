// radarblock install: a release into a WebKitGTK/WPE filter store (WebKitUserContentFilterStore directory).

import Foundation
import Install

enum InstallCommand: Command {
    static let name = "install"
    static let summary = "install a release's lists into a WebKitGTK/WPE filter store (skips unchanged lists)"
    /// The command's options: its grammar lists them and `run` reads them, so a key is spelled once.
    enum Option {
        static let store = OptionSpec(
            "--store", value: "DIR",
            help: """
                the filter store directory (created if missing); DIR/radarblock-install.json records
                the releases installed there (written atomically), one entry per release directory
                """)
        static let prune = OptionSpec(
            "--prune",
            help: """
                remove every radarblock list in DIR that no installed release needs (lists whose
                identifiers are not radarblock's, e.g. an app's own, are left alone)
                """)
        static let status = OptionSpec(
            "--status", help: "print what is installed in DIR and whether WebKit's file of each list is present")
        static let json = OptionSpec("--json", help: "with --status: print radarblock-install.json itself")
        static let target = OptionSpec(
            "--target", value: "NAME",
            help: """
                install the lists of this target of the release (one of the manifest's `targets`); by
                default its only target, or of several the WebKitGTK profile of the WebKitGTK installed
                (webkitgtk-2.50 for 2.50.x). The store records the target
                """)
    }

    static let grammar = CommandGrammar(
        forms: [
            "RELEASE_DIR --store DIR [--target NAME] [--prune]", "--prune --store DIR", "--status --store DIR [--json]",
        ],
        positionals: ["RELEASE_DIR"], positionalCount: 0...1,
        parts: [
            .text(
                """
                Compiles every list of the release for one target (the manifest's `lists` of that target, in order,
                click-to-load lists included) with WebKitGTK's own compiler (loaded at run time) into the
                WebKitUserContentFilterStore at DIR, under the identifiers the manifest gives them. An app then
                loads each list with webkit_user_content_filter_store_load(store, identifier) on a store made
                with webkit_user_content_filter_store_new(DIR).
                """),
            .options(
                nil,
                [
                    Option.store,
                    Option.target,
                    Option.prune,
                    Option.status,
                    Option.json,
                ]),
            .text(
                """
                A list whose identifier is already in the store is not recompiled (the identifier names the content).
                When WebKit rejects a list, the release is not recorded: the store keeps serving the lists of the
                release previously installed from RELEASE_DIR, and install exits 1 naming the list.
                Exit status: 0 installed (or nothing to do), 1 a list failed or the release is invalid (with --status:
                a recorded list is missing from DIR), 2 usage error.
                """),
        ])

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try parse(arguments)
        let store = try args.required(Option.store)
        if args.has(Option.status) {
            guard args.positionals.isEmpty, !args.has(Option.prune), args.value(Option.target) == nil else {
                throw UsageError("--status takes only --store DIR [--json]")
            }
            return try status(store: store, json: args.has(Option.json))
        }
        if args.has(Option.json) { throw UsageError("--json goes with --status") }
        guard let release = args.positionals.first else {
            guard args.has(Option.prune) else { throw UsageError("missing RELEASE_DIR (or --prune / --status)") }
            do { printPruned(try StoreInstaller.prune(store: store)) } catch let e
                as StoreInstallError
            { throw InputError(e.description) }
            return ExitCode.success
        }
        return try install(
            release: release, store: store, prune: args.has(Option.prune), target: args.value(Option.target))
    }

    static func install(release: String, store: String, prune: Bool, target: String?) throws -> Int32 {
        let start = Date()
        let report: StoreInstallReport
        do {
            report = try StoreInstaller.install(
                release: release, store: store, prune: prune, target: target, webKit: WebKitEngine.store())
        } catch let e as StoreInstallError {
            throw InputError(e.description)
        }
        for list in report.compiled {
            print(
                "compiled \(list.identifier) (\(list.rules)): \(String(format: "%.3f", list.compileSeconds)) s,"
                    + " \(list.webkitBytes) bytes"
            )
        }
        for list in report.alreadyInStore { print("in store \(list.identifier) (\(list.rules)): not recompiled") }
        printPruned(report.pruned)
        let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
        guard report.failed.isEmpty else {
            for f in report.failed {
                Console.error("\(release)/\(f.rules) (list \(f.index + 1), \(f.identifier)): \(f.message)")
            }
            let kept =
                report.kept.map { "the store keeps \($0.identifier) installed from \($0.path)" }
                ?? "nothing was installed from \(release) before"
            Console.error("\(release) not installed into \(store): \(report.failed.count) list(s) failed; \(kept)")
            return ExitCode.failure
        }
        let forTarget = report.release!.target.map { " for \($0)" } ?? ""
        print(
            "installed \(report.release!.identifier)\(forTarget) into \(store): \(report.compiled.count) compiled, "
                + "\(report.alreadyInStore.count) already in the store (\(seconds) s)")
        return ExitCode.success
    }

    static func printPruned(_ identifiers: [String]) {
        for id in identifiers { print("pruned \(id)") }
    }

    static func status(store: String, json: Bool) throws -> Int32 {
        let state: StoreState
        do { state = try StoreState.load(store: store) } catch let e as StoreInstallError {
            throw InputError(e.description)
        }
        if json {
            FileHandle.standardOutput.write(Data(state.bytes()))
            return ExitCode.success
        }
        let present = Set(StoreInstaller.storedIdentifiers(store: store))
        if state.releases.isEmpty { print("\(store): no release installed") }
        for release in state.releases.sorted(by: { $0.path < $1.path }) {
            print("\(release.path): \(release.identifier)" + (release.target.map { " (target \($0))" } ?? ""))
            for list in release.lists {
                let extra = [
                    list.ruleAction.map { "ruleAction \($0)" }, list.entity.map { "entity \($0)" },
                    list.role.map { "role \($0)" },
                ].compactMap { $0 }
                print(
                    "  \(list.identifier) (\(list.rules)\(extra.isEmpty ? "" : ", " + extra.joined(separator: ", "))): "
                        + (present.contains(list.identifier) ? "\(list.webkitBytes) bytes" : "MISSING from the store"))
            }
        }
        let unused = present.subtracting(state.identifiers).sorted()
        for id in unused { print("unused \(id) (removed by --prune)") }
        return state.releases.allSatisfy({ $0.lists.allSatisfy { present.contains($0.identifier) } })
            ? ExitCode.success : ExitCode.failure
    }
}
