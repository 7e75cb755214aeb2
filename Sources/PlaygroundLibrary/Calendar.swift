import Foundation
import PromptInterpreter

/// `Calendar`, its identifiers and components, and `DateComponents` (Surface/Table/Foundation.swift).
/// Every calendar computes in UTC unless its `timeZone` is set (`Calendar.current` too), so results do not
/// depend on the machine.
/// A calendar is `.structure("Calendar", identifier)`, date components `.structure("DateComponents", ...)`
/// with nil for the components not asked for.
extension Builtins {
    static let calendarComponentNames = ["era", "year", "month", "day", "hour", "minute", "second", "weekday", "weekOfYear"]

    static let calendarBuiltins: [String: Builtin] = {
        var all: [String: Builtin] = [
            "Calendar.init(identifier:)": { i, c in
                guard case .enumCase(_, let name, _)? = try await c.arguments(i).value("identifier"), ["gregorian", "iso8601"].contains(name) else {
                    throw i.error("Calendar(identifier:) takes .gregorian or .iso8601", c.node)
                }
                return calendarValue(name)
            },
            "Calendar.current": constant(calendarValue("gregorian")),
            "Calendar.identifier": field("identifier"),
            "Calendar.timeZone": field("timeZone"),
            "Calendar.component(_:from:)": onCalendar { i, calendar, c in
                let args = try await c.arguments(i)
                let component = try calendarComponent(i, args.unlabelled.first, c)
                return .int(calendar.component(component, from: try dateArgument(i, args.value("from"), c)))
            },
            "Calendar.dateComponents(_:from:)": onCalendar { i, calendar, c in
                let args = try await c.arguments(i)
                let components = try calendarComponents(i, args.unlabelled.first, c)
                return dateComponentsValue(calendar.dateComponents(components, from: try dateArgument(i, args.value("from"), c)), components)
            },
            "Calendar.dateComponents(_:from:to:)": onCalendar { i, calendar, c in
                let args = try await c.arguments(i)
                let components = try calendarComponents(i, args.unlabelled.first, c)
                let from = try dateArgument(i, args.value("from"), c), to = try dateArgument(i, args.value("to"), c)
                return dateComponentsValue(calendar.dateComponents(components, from: from, to: to), components)
            },
            "Calendar.date(byAdding:value:to:)": onCalendar { i, calendar, c in
                let args = try await c.arguments(i)
                let component = try calendarComponent(i, args.value("byAdding"), c)
                let value = try i.intArgument(args.value("value"), "date(byAdding:value:to:)", c.node)
                let date = calendar.date(byAdding: component, value: value, to: try dateArgument(i, args.value("to"), c))
                return date.map { .date($0.timeIntervalSince1970) } ?? .null
            },
            "Calendar.date(from:)": onCalendar { i, calendar, c in
                guard case .structure("DateComponents", let fields)? = try await c.arguments(i).value("from") else {
                    throw i.error("date(from:) needs DateComponents", c.node)
                }
                var components = DateComponents()
                for (name, value) in fields {
                    guard case .int(let n) = value, let component = calendarComponent(named: name) else { continue }
                    components.setValue(n, for: component)
                }
                return calendar.date(from: components).map { .date($0.timeIntervalSince1970) } ?? .null
            },
            "Calendar.startOfDay(for:)": onCalendar { i, calendar, c in
                .date(calendar.startOfDay(for: try dateArgument(i, try await c.arguments(i).value("for"), c)).timeIntervalSince1970)
            },
            "Calendar.isDate(_:inSameDayAs:)": onCalendar { i, calendar, c in
                let args = try await c.arguments(i)
                return .bool(calendar.isDate(try dateArgument(i, args.unlabelled.first, c), inSameDayAs: try dateArgument(i, args.value("inSameDayAs"), c)))
            },
            "Calendar.isDateInWeekend(_:)": onCalendar { i, calendar, c in
                .bool(calendar.isDateInWeekend(try dateArgument(i, try await c.arguments(i).unlabelled.first, c)))
            },
            "DateComponents.init(year:month:day:hour:minute:second:)": { i, c in
                let args = try await c.arguments(i)
                return .structure(type: "DateComponents", fields: calendarComponentNames.map { name in
                    (name, args.value(name).flatMap { if case .int = $0 { $0 } else { nil } } ?? .null)
                })
            },
        ]
        for name in ["gregorian", "iso8601"] {
            all["Calendar.Identifier." + name] = constant(.enumCase(type: "Calendar.Identifier", name: name, payload: []))
        }
        for name in calendarComponentNames {
            all["Calendar.Component." + name] = constant(.enumCase(type: "Calendar.Component", name: name, payload: []))
            all["DateComponents." + name] = field(name)
        }
        return all
    }()

    static func calendarValue(_ identifier: String) -> Value {
        .structure(type: "Calendar", fields: [("identifier", .enumCase(type: "Calendar.Identifier", name: identifier, payload: [])),
                                              ("timeZone", timeZoneValue("UTC"))])
    }

    static let calendarIdentifier: @Sendable (Value) -> String? = {
        guard case .structure("Calendar", let fields) = $0, case .enumCase(_, let name, _)? = fields.first(where: { $0.name == "identifier" })?.value else {
            return nil
        }
        return name
    }

    /// A calendar member with Foundation's calendar of that identifier, in the calendar's zone.
    static func onCalendar(_ body: @escaping @Sendable (Interpreter, Calendar, BuiltinCall) async throws -> Value) -> Builtin {
        on(calendarIdentifier) { i, name, c in
            var calendar = Calendar(identifier: name == "iso8601" ? .iso8601 : .gregorian)
            guard case .structure(_, let fields) = c.base, let zone = fields.first(where: { $0.name == "timeZone" })?.value else {
                throw i.error("the calendar has no timeZone", c.node)
            }
            calendar.timeZone = try timeZone(i, zone, c)
            calendar.locale = Locale(identifier: "en_US_POSIX")
            return try await body(i, calendar, c)
        }
    }

    static func dateArgument(_ i: Interpreter, _ value: Value?, _ c: BuiltinCall) throws -> Date {
        guard case .date(let seconds)? = value else { throw i.error("\(c.entry.selector) needs a Date", c.node) }
        return Date(timeIntervalSince1970: seconds)
    }

    static func calendarComponent(named name: String) -> Calendar.Component? {
        switch name {
        case "era": .era
        case "year": .year
        case "month": .month
        case "day": .day
        case "hour": .hour
        case "minute": .minute
        case "second": .second
        case "weekday": .weekday
        case "weekOfYear": .weekOfYear
        default: nil
        }
    }

    static func calendarComponent(_ i: Interpreter, _ value: Value?, _ c: BuiltinCall) throws -> Calendar.Component {
        guard case .enumCase(_, let name, _)? = value, let component = calendarComponent(named: name) else {
            throw i.error("\(c.entry.selector) needs a Calendar.Component such as .day", c.node)
        }
        return component
    }

    /// `[.year, .month]` (an array or a set of components).
    static func calendarComponents(_ i: Interpreter, _ value: Value?, _ c: BuiltinCall) throws -> Set<Calendar.Component> {
        switch value {
        case .array(let items)?, .set(let items)?: return Set(try items.map { try calendarComponent(i, $0, c) })
        default: throw i.error("\(c.entry.selector) needs a set of components such as [.year, .month]", c.node)
        }
    }

    /// Foundation's components as a value: the asked ones set, the others nil.
    static func dateComponentsValue(_ components: DateComponents, _ asked: Set<Calendar.Component>) -> Value {
        .structure(type: "DateComponents", fields: calendarComponentNames.map { name in
            guard let component = calendarComponent(named: name), asked.contains(component), let n = components.value(for: component),
                  n != NSDateComponentUndefined else { return (name, .null) }
            return (name, .int(n))
        })
    }
}
