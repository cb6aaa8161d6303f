package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// manPage writes the man page (section 1, man(7) macros) of cmd to w,
// from the command's own help: its usage line (usageLine), Short, Long and Example,
// its flags and those it inherits, and the commands above and below it.
// kmeta writes the roff itself rather than through cobra's doc package,
// whose markdown renderer and YAML support every command would link and
// initialise (cmd/kmeta/BENCH.md).
func manPage(w io.Writer, cmd *cobra.Command, date time.Time) error {
	bw := bufio.NewWriter(w)
	name := strings.ReplaceAll(cmd.CommandPath(), " ", "-")
	fmt.Fprintf(bw, ".TH \"KMETA\" \"1\" \"%s\" \"kmeta %s\" \"kmeta manual\"\n.nh\n",
		date.UTC().Format("Jan 2006"), roffQuoted(moduleVersion()))
	fmt.Fprintf(bw, ".SH NAME\n%s \\- %s\n", roffText(name), roffText(cmd.Short))
	fmt.Fprintf(bw, ".SH SYNOPSIS\n\\fB%s\\fR\n", roffText(usageLine(cmd)))
	manSection(bw, "DESCRIPTION", cmp.Or(cmd.Long, cmd.Short))
	manFlags(bw, "OPTIONS", cmd.NonInheritedFlags())
	manFlags(bw, "OPTIONS INHERITED FROM PARENT COMMANDS", cmd.InheritedFlags())
	if cmd.Example != "" {
		fmt.Fprintf(bw, ".SH EXAMPLE\n.nf\n%s\n.fi\n", roffLines(cmd.Example))
	}
	manSeeAlso(bw, cmd)
	return bw.Flush()
}

// manSection writes a section of prose: text's paragraphs (separated by
// blank lines) filled by the formatter, each line that starts with
// blanks kept on a line of its own.
func manSection(w io.Writer, title, text string) {
	fmt.Fprintf(w, ".SH %s\n", title)
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			io.WriteString(w, ".PP\n")
		}
		fmt.Fprintf(w, "%s\n", roffLines(strings.Trim(para, "\n")))
	}
}

// manFlags writes a section listing flags, one tagged paragraph each:
// "-o, --output=FILE", then its usage and its default unless that is the
// zero value. It writes nothing when no flag is visible.
func manFlags(w io.Writer, title string, flags *pflag.FlagSet) {
	first := true
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if first {
			fmt.Fprintf(w, ".SH %s\n", title)
			first = false
		}
		varname, usage := pflag.UnquoteUsage(f)
		tag := `\fB` + roffText("--"+f.Name) + `\fR`
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			tag = `\fB` + roffText("-"+f.Shorthand) + `\fR, ` + tag
		}
		if varname != "" {
			tag += `=\fI` + roffText(varname) + `\fR`
		}
		switch f.DefValue {
		case "", "0", "false", "[]":
		default:
			usage += " (default " + strconv.Quote(f.DefValue) + ")"
		}
		fmt.Fprintf(w, ".TP\n%s\n%s\n", tag, roffLines(usage))
	})
}

// manSeeAlso names the pages of cmd's parent and of its subcommands.
func manSeeAlso(w io.Writer, cmd *cobra.Command) {
	var refs []string
	if cmd.HasParent() {
		refs = append(refs, cmd.Parent().CommandPath())
	}
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			refs = append(refs, sub.CommandPath())
		}
	}
	if len(refs) == 0 {
		return
	}
	io.WriteString(w, ".SH SEE ALSO\n")
	for i, ref := range refs {
		sep := ","
		if i == len(refs)-1 {
			sep = ""
		}
		fmt.Fprintf(w, ".BR %s (1)%s\n", roffText(strings.ReplaceAll(ref, " ", "-")), sep)
	}
}

// roffLines escapes text of several lines for roff: each line as
// roffText, and a line that starts with a control character (. or ')
// made plain text with a leading \&.
func roffLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		l = roffText(l)
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// roffEscapes escapes text for roff: a backslash is \e, and a hyphen is
// \-, the minus sign, so that options and commands copied from the page
// are typed as they should be.
var roffEscapes = strings.NewReplacer(`\`, `\e`, "-", `\-`)

// roffText escapes one line of text for roff (roffEscapes).
func roffText(s string) string { return roffEscapes.Replace(s) }

// roffQuoted escapes s for a quoted macro argument: a double quote is
// written as two.
func roffQuoted(s string) string {
	return strings.ReplaceAll(roffText(s), `"`, `""`)
}

// manDate is the date man pages carry: now, or $SOURCE_DATE_EPOCH (in
// seconds) for a reproducible build.
func manDate() (time.Time, error) {
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		return time.Now(), nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: not a number of seconds", epoch)
	}
	return time.Unix(sec, 0), nil
}
