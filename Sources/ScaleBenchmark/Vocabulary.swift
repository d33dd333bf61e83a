/// Words and names the generated book is written in: mostly English, with enough French,
/// German, Spanish and Polish (accents, ß, Ł) that searching ignoring accents has work to do.
enum Vocabulary {
    static let words: [String] = """
        the of and to in is that it was for on are as with his they at be this from have or by one had not but what \
        all were when we there can an your which their said if do will each about how up out them then she many some \
        so these would other into has more her two like him see time could no make than first been its who now people \
        my made over did down only way find use may water long little very after words called just where most know \
        universe stupidity infinite nothing everything imagination knowledge wisdom courage patience silence river \
        mountain garden library candle morning evening winter summer friendship journey question answer memory dream \
        truth beauty freedom justice laughter sorrow kindness stranger harbour lantern compass thunder whisper \
        école café naïve façade crème brûlée déjà élan résumé fiancée señor mañana niño corazón canción \
        Zürich Straße Mädchen schön über Größe Ångström Łódź Kraków żółw Dvořák Škoda smörgåsbord œuvre Ærø
        """.split(separator: " ").map(String.init)

    static let firstNames: [String] = """
        Ada Albert Marie Simone Jorge Gabriel Zoë Chloé Renée José Søren Ægir Łukasz Małgorzata Frédéric Mary \
        Virginia Oscar Mark Toni Maya Rumi Lao Confucius Seneca Epictetus Hypatia Emily Walt Rainer Hannah Isaac
        """.split(separator: " ").map(String.init)

    static let lastNames: [String] = """
        Lovelace Einstein Curie Beauvoir Borges García Márquez Kierkegaard Wałęsa Chopin Shelley Woolf Wilde \
        Twain Morrison Angelou Tzu Aurelius Dickinson Whitman Rilke Arendt Newton Brontë Camus Saint-Exupéry Müller
        """.split(separator: " ").map(String.init)

    /// A sentence of 8 to 30 words, capitalised, ending with a full stop.
    static func sentence(_ random: inout SplitMix64) -> String {
        let count = 8 + random.below(23)
        var text = ""
        for index in 0..<count {
            let word = words[random.below(words.count)]
            if index > 0 { text += " " }
            text += index == 0 ? word.prefix(1).uppercased() + word.dropFirst() : word
        }
        return text + "."
    }

    /// A first and last name.
    static func person(_ random: inout SplitMix64) -> String {
        firstNames[random.below(firstNames.count)] + " " + lastNames[random.below(lastNames.count)]
    }
}
