"""Apple's own AppStoreServerAPIClient against Tools/appstore-api-standin: proof that the
stand-in answers in the shapes Apple's library parses.

    standin_fidelity.py BASE_URL CA_FILE KEY.p8 KEY_ID ISSUER_ID BUNDLE_ID TRANSACTION_ID

Walks every page of Get Notification History and of Get Transaction History v2 (revision
paging), reads Get All Subscription Statuses, requests a test notification and its status, and
asks for an unknown transaction; prints one JSON object with what each call returned.
"""

import json
import os
import sys

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, TransactionHistoryRequest


def main():
    base_url, ca_file, key_file, key_id, issuer_id, bundle_id, transaction_id = sys.argv[1:8]
    os.environ["REQUESTS_CA_BUNDLE"] = ca_file
    with open(key_file, "rb") as file:
        key = file.read()
    client = AppStoreServerAPIClient(key, key_id, issuer_id, bundle_id, Environment.SANDBOX)
    # The library has no base-URL option: its per-environment URL is replaced by the stand-in's.
    client._base_url = base_url

    report = {}
    notifications, pages, token = [], 0, None
    while True:
        page = client.get_notification_history(token, NotificationHistoryRequest(startDate=0, endDate=4102444800000))
        pages += 1
        notifications += [item.signedPayload for item in page.notificationHistory]
        assert all(item.sendAttempts and item.sendAttempts[0].sendAttemptResult for item in page.notificationHistory)
        if not page.hasMore:
            break
        token = page.paginationToken
    report["notificationHistory"] = {"pages": pages, "notifications": len(notifications), "distinct": len(set(notifications))}

    transactions, pages, revision = [], 0, None
    while True:
        page = client.get_transaction_history(transaction_id, revision, TransactionHistoryRequest(sort=Order.ASCENDING),
                                              GetTransactionHistoryVersion.V2)
        pages += 1
        transactions += page.signedTransactions
        if not page.hasMore:
            break
        revision = page.revision
    report["transactionHistory"] = {"pages": pages, "transactions": len(transactions), "bundleId": page.bundleId}

    statuses = client.get_all_subscription_statuses(transaction_id)
    items = [item for group in statuses.data for item in group.lastTransactions]
    report["subscriptionStatuses"] = {"groups": len(statuses.data), "lastTransactions": len(items),
                                      "statuses": sorted({int(item.status) for item in items}),
                                      "signed": all(item.signedTransactionInfo for item in items)}

    token = client.request_test_notification().testNotificationToken
    status = client.get_test_notification_status(token)
    report["testNotification"] = {"token": bool(token), "sendAttempts": len(status.sendAttempts or [])}

    try:
        client.get_transaction_history("999999999999", None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
        report["unknownTransaction"] = None
    except APIException as error:
        report["unknownTransaction"] = {"status": error.http_status_code, "errorCode": error.raw_api_error}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
