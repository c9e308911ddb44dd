package wire_test

import (
	"fmt"

	"github.com/panestate/panestate/adapters/herdr/internal/wire"
)

// The request line Herdr's CLI sends for a sequenced report, and the
// answer a server gives it.
func ExampleNewRequest() {
	seq := uint64(1755600000000000001)
	msg := "Waiting for approval"
	req, err := wire.NewRequest(wire.IDCLIRequest, wire.MethodReportAgent, wire.ReportAgentParams{
		PaneID: "w1:p1", Source: "custom:mychat", Agent: "mychat", State: wire.StateBlocked, Message: &msg, Seq: &seq,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	line, _ := req.Line()
	fmt.Print(string(line))
	fmt.Print(string(wire.OK(req.ID).Line()))
	// Output:
	// {"id":"cli:request","method":"pane.report_agent","params":{"pane_id":"w1:p1","source":"custom:mychat","agent":"mychat","state":"blocked","message":"Waiting for approval","seq":1755600000000000001}}
	// {"id":"cli:request","result":{"type":"ok"}}
}

// An error response decodes to an *Error whose text is the code alone:
// what the server said stays in Message, out of logs.
func ExampleDecodeResponse() {
	resp, err := wire.DecodeResponse([]byte(`{"id":"cli:request","error":{"code":"pane_not_found","message":"pane w9:p9 not found"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Err())
	fmt.Println(resp.Error.Code == wire.CodePaneNotFound, resp.Error.Message)
	// Output:
	// herdr answered pane_not_found
	// true pane w9:p9 not found
}
